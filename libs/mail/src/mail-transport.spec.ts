import { describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { JsonLogger, loadConfig } from '@platform/core';
import { closedLocalPort } from '@platform/testing';
import { Writable } from 'node:stream';
import { MailTransport } from './mail-transport.js';

const message = {
  to: 'ada@example.test',
  subject: 'Verify your e-mail',
  text: 'Open https://cloud.example.test/verify-email?token=abc123def456\n\nVerification token: abc123def456',
};

function captureLog(): string[] {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  Logger.overrideLogger(JsonLogger.create('worker', 'info', stream));
  return lines;
}

describe('MailTransport', () => {
  it('writes the e-mail to the log as one JSON line when SMTP_URL is unset, its tokens redacted', async () => {
    const lines = captureLog();
    const transport = new MailTransport(loadConfig({ MAIL_FROM: 'platform@example.test' }));

    await expect(transport.send(message)).resolves.toEqual({ via: 'log' });

    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({
      level: 'info',
      context: 'mail',
      email: {
        from: 'platform@example.test',
        to: 'ada@example.test',
        subject: 'Verify your e-mail',
        text: 'Open https://cloud.example.test/verify-email?token=[redacted]\n\nVerification token: [redacted]',
      },
    });
    expect(lines[0]).not.toContain('abc123def456');
  });

  it('fails when the SMTP server cannot be reached, so the job is retried', async () => {
    const port = await closedLocalPort();
    const transport = new MailTransport(loadConfig({ SMTP_URL: `smtp://127.0.0.1:${port}` }));
    try {
      await expect(transport.send(message)).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      transport.onModuleDestroy();
    }
  });
});
