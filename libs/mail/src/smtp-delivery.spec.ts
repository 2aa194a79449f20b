import { afterEach, describe, expect, it } from '@jest/globals';
import { loadConfig } from '@platform/core';
import { type ParsedMail, simpleParser } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import type { EmailMessage } from './email.js';
import { MailTransport } from './mail-transport.js';
import { messageIdLeft, messageIdOf } from './message-id.js';

/*
 * MailTransport against a real SMTP server: the pooled sessions, a refused message failing
 * alone, an idle session the server closed, and what a mail client reads of each message.
 */

interface Received {
  envelope: { from: string; to: string[] };
  mail: ParsedMail;
}

interface Server {
  url: string;
  sessions: number;
  received: Received[];
  close(): Promise<void>;
}

async function startServer(options: Partial<SMTPServerOptions> = {}): Promise<Server> {
  const state = { sessions: 0, received: [] as Received[] };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      state.sessions += 1;
      callback();
    },
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('refused')) {
        callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
      } else {
        callback();
      }
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const from = session.envelope.mailFrom;
          state.received.push({
            envelope: {
              from: from ? from.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
            },
            mail,
          });
          callback();
        })
        .catch(callback);
    },
    ...options,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  return {
    url: `smtp://127.0.0.1:${port}`,
    get sessions() {
      return state.sessions;
    },
    received: state.received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const longLine = `${'word '.repeat(300)}end`;
const message = (to: string, text: string): EmailMessage => ({ to, subject: 'Hello', text });

describe('MailTransport over SMTP', () => {
  let server: Server | undefined;
  let transport: MailTransport | undefined;

  const start = async (mailFrom = 'platform@example.test', options = {}) => {
    server = await startServer(options);
    transport = new MailTransport(loadConfig({ SMTP_URL: server.url, MAIL_FROM: mailFrom }));
    return transport;
  };

  afterEach(async () => {
    transport?.onModuleDestroy();
    await server?.close();
    transport = undefined;
    server = undefined;
  });

  it('sends concurrent messages over at most 20 pooled sessions', async () => {
    const mail = await start();
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => mail.send(message(`user-${i}@example.test`, `m ${i}`))),
    );
    expect(server!.received).toHaveLength(60);
    expect(new Set(server!.received.map((r) => r.mail.text!.trim())).size).toBe(60);
    expect(server!.sessions).toBeLessThanOrEqual(20);
  });

  it('fails only the refused message', async () => {
    const mail = await start();
    const results = await Promise.allSettled([
      mail.send(message('refused@example.test', 'bounce')),
      mail.send(message('ada@example.test', 'arrives')),
    ]);
    expect(results[0]).toMatchObject({ status: 'rejected', reason: { responseCode: 550 } });
    expect(results[1]).toMatchObject({ status: 'fulfilled', value: { via: 'smtp' } });
    expect(server!.received.map((r) => r.mail.text!.trim())).toEqual(['arrives']);
  });

  it('sends on a new session after the server closed the idle one', async () => {
    // Long enough that a busy machine still completes the first session within it.
    const mail = await start('platform@example.test', { socketTimeout: 1000 });
    await mail.send(message('ada@example.test', 'first'));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await mail.send(message('ada@example.test', 'second'));
    expect(server!.received.map((r) => r.mail.text!.trim())).toEqual(['first', 'second']);
    expect(server!.sessions).toBe(2);
  });

  it('keeps lines that start with a dot through the SMTP dot-stuffing', async () => {
    const mail = await start();
    await mail.send(message('ada@example.test', '.\n..two dots\n.'));
    expect(server!.received[0].mail.text).toBe('.\n..two dots\n.\n');
  });

  it('derives the Message-ID from a message key on the sender domain, and answers it', async () => {
    const mail = await start('Platform <platform@bücher.example>');
    const delivery = await mail.send({ ...message('ada@example.test', 'x'), messageKey: 'page:1' });
    const id = `<${messageIdLeft('page:1')}@xn--bcher-kva.example>`;
    expect(delivery).toEqual({ via: 'smtp', messageId: id });
    expect(server!.received[0].mail.messageId).toBe(id);
    expect(messageIdOf('platform@example.test', 'page:1')).toBe(
      `<${messageIdLeft('page:1')}@example.test>`,
    );
    expect(messageIdOf('platform@example.test')).toMatch(/^<[0-9a-f-]{36}@example\.test>$/);
  });

  it.each<[string, string, EmailMessage]>([
    [
      'text and HTML',
      'Platform <platform@example.test>',
      {
        to: 'ada@example.test',
        subject: 'Your notification digest: 2 updates',
        text: 'Hello Ada,\n\n* Invoice 1\n  Amount: 12.00 EUR',
        html: '<p>Hello Ada,</p><ul><li><strong>Invoice 1</strong></li></ul>',
      },
    ],
    [
      'non-ASCII subject, body and sender name',
      'Plattform Köln <platform@example.test>',
      {
        to: 'Zoë <zoe@example.test>',
        subject: 'Grüße: Ihre Rechnung über 12,00 € ist fällig — bitte prüfen Sie die Details 😀',
        text: 'Straße 1\nÜberweisung bis Freitag.',
        html: '<p>Straße 1<br>Überweisung</p>',
      },
    ],
    [
      'lines longer than 998 characters',
      'platform@example.test',
      { to: 'ada@example.test', subject: longLine, text: longLine, html: `<p>${longLine}</p>` },
    ],
  ])('delivers %s as written', async (_, from, sent) => {
    const mail = await start(from);
    await mail.send(sent);
    const [{ mail: received }] = server!.received;
    expect(received.subject).toBe(sent.subject);
    expect(received.text!.trim()).toBe(sent.text.trim());
    expect(received.html).toBe(sent.html);
    expect(received.from!.value).toEqual([
      { name: /^(.*) </.exec(from)?.[1] ?? '', address: 'platform@example.test' },
    ]);
    expect(received.to).toMatchObject({ value: [{ address: /[^<]+@example\.test$/ }] });
  });

  it('keeps line breaks in a subject from starting a new header', async () => {
    const mail = await start();
    await mail.send({ to: 'ada@example.test', subject: 'Hi\r\nBcc: eve@example.test', text: 'x' });
    const [{ envelope, mail: received }] = server!.received;
    expect(envelope.to).toEqual(['ada@example.test']);
    expect(received.headers.has('bcc')).toBe(false);
    expect(received.subject).toBe('Hi Bcc: eve@example.test');
  });
});
