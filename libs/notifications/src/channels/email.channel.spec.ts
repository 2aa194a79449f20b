import { describe, expect, it } from '@jest/globals';
import type { MailTransport } from '@platform/mail';
import { EmailChannel } from './email.channel.js';

const smtpError = (message: string, responseCode?: number, code?: string) =>
  Object.assign(new Error(message), { responseCode, code });

describe('EmailChannel.classify', () => {
  const channel = new EmailChannel({} as MailTransport);

  it('fails a permanent refusal (5xx) at once', () => {
    expect(
      channel.classify(
        smtpError(
          "Can't send mail - all recipients were rejected: 550 mailbox unavailable",
          550,
          'EENVELOPE',
        ),
      ),
    ).toEqual({
      retry: false,
      reason: "Can't send mail - all recipients were rejected: 550 mailbox unavailable",
    });
    expect(channel.classify(smtpError('552 message size exceeds fixed maximum', 552)).retry).toBe(
      false,
    );
  });

  it('retries a temporary refusal, a server that is down and anything unknown', () => {
    expect(channel.classify(smtpError('421 service not available', 421)).retry).toBe(true);
    expect(channel.classify(smtpError('451 try again later', 451)).retry).toBe(true);
    expect(
      channel.classify(smtpError('connect ECONNREFUSED 127.0.0.1:25', undefined, 'ECONNREFUSED'))
        .retry,
    ).toBe(true);
    expect(channel.classify(new Error('boom')).retry).toBe(true);
    expect(channel.classify(null).retry).toBe(true);
  });
});
