import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTransport } from 'nodemailer';
import { FakeTwilio } from './fake-twilio.js';
import { SmtpSink } from './smtp-sink.js';

describe('device-level expectations', () => {
  let twilio: FakeTwilio;
  let sink: SmtpSink;

  beforeAll(async () => {
    [twilio, sink] = await Promise.all([FakeTwilio.start(), SmtpSink.start()]);
  });

  afterAll(async () => {
    await Promise.all([twilio.close(), sink.close()]);
  });

  const send = (resource: 'Messages' | 'Calls', fields: Record<string, string>) =>
    fetch(`${twilio.url}/2010-04-01/Accounts/${twilio.accountSid}/${resource}.json`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ From: '+15550000000', ...fields }).toString(),
    });

  it('a device takes each text and call once; what nobody expected fails at the end', async () => {
    twilio.clear();
    await send('Messages', { To: '+4915100000001', Body: 'Alert DiskFull: reply 123456' });
    await send('Messages', { To: '+4915100000001', Body: 'Alert DiskFull: reply 654321' });
    await send('Calls', {
      To: '+4915100000002',
      Twiml: '<Response><Say>DiskFull</Say></Response>',
    });
    const phone = twilio.device('+4915100000001');
    expect((await phone.expectSms('DiskFull', /reply \d{6}/)).body).toContain('123456');
    expect(() => twilio.expectNoUnexpected()).toThrow(
      'unexpected 2 text(s)/call(s): sms to +4915100000001: Alert DiskFull: reply 654321; call to +4915100000002',
    );
    expect((await phone.expectSms('DiskFull')).body).toContain('654321');
    await expect(twilio.device('+4915100000002').expectSms('DiskFull')).rejects.toThrow(
      'no matching Twilio request',
    );
    await twilio.device('+4915100000002').expectCall('<Say>DiskFull</Say>');
    expect(() => twilio.expectNoUnexpected()).not.toThrow();
  }, 10_000);

  it('a mailbox takes each message once; what nobody expected fails at the end', async () => {
    sink.clear();
    const transport = createTransport({ host: '127.0.0.1', port: sink.port, secure: false });
    await transport.sendMail({
      from: 'a@example.test',
      to: 'ops@example.test',
      subject: 'Page: DiskFull',
      text: 'ack link',
    });
    await transport.sendMail({
      from: 'a@example.test',
      to: 'dev@example.test',
      subject: 'Digest',
      text: '3 notifications',
    });
    transport.close();
    await sink.mailbox('OPS@example.test').expectMail('DiskFull', /ack link/);
    expect(() => sink.expectNoUnexpected()).toThrow(
      'unexpected 1 e-mail(s): to dev@example.test: Digest',
    );
    await sink.mailbox('dev@example.test').expectMail('3 notifications');
    expect(() => sink.expectNoUnexpected()).not.toThrow();
  }, 10_000);
});
