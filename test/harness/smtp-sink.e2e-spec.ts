import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SmtpSink } from '@platform/testing';
import nodemailer from 'nodemailer';

describe('SMTP sink', () => {
  let sink: SmtpSink;

  beforeAll(async () => {
    sink = await SmtpSink.start();
  });

  afterAll(async () => {
    await sink.close();
  });

  it('records what an SMTP client delivers', async () => {
    const transport = nodemailer.createTransport(sink.url);
    await transport.sendMail({
      from: 'platform@localhost',
      to: 'someone@example.com',
      subject: 'Verify your e-mail',
      text: 'token: abc123',
      messageId: '<verify-1@platform.example>',
    });
    const mail = await sink.waitFor((m) => m.to.includes('someone@example.com'));
    expect(mail).toMatchObject({
      from: 'platform@localhost',
      to: ['someone@example.com'],
      subject: 'Verify your e-mail',
      messageId: '<verify-1@platform.example>',
    });
    expect(mail.text).toContain('token: abc123');
  });
});
