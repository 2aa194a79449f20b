import { afterEach, describe, expect, it } from '@jest/globals';
import { simpleParser } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { composeMime, parseMailboxes } from './mime.js';
import { SmtpPool } from './smtp-pool.js';

interface Server {
  url: string;
  sessions: number;
  texts: string[];
  close(): Promise<void>;
}

async function startServer(options: Partial<SMTPServerOptions> = {}): Promise<Server> {
  const state = { sessions: 0, texts: [] as string[] };
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
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          state.texts.push(parsed.text ?? '');
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
    texts: state.texts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const from = parseMailboxes('platform@example.test')[0];
const mail = (to: string, text: string) => composeMime(from, { to, subject: 'Hello', text });

describe('SmtpPool', () => {
  let server: Server | undefined;
  let pool: SmtpPool | undefined;

  afterEach(async () => {
    pool?.close();
    await server?.close();
    pool = undefined;
    server = undefined;
  });

  it('sends concurrent messages over at most maxConnections sessions', async () => {
    server = await startServer();
    pool = new SmtpPool({ url: server.url, maxConnections: 3 });
    const sends = Array.from({ length: 60 }, (_, i) => {
      const { envelope, raw } = mail(`user-${i}@example.test`, `message ${i}`);
      return pool!.send(envelope, raw);
    });
    await Promise.all(sends);
    expect(server.texts).toHaveLength(60);
    expect(new Set(server.texts.map((t) => t.trim())).size).toBe(60);
    expect(server.sessions).toBeLessThanOrEqual(3);
  });

  it('keeps lines that start with a dot through the SMTP dot-stuffing', async () => {
    server = await startServer();
    pool = new SmtpPool({ url: server.url, maxConnections: 1 });
    const { envelope, raw } = mail('ada@example.test', '.\n..two dots\n.');
    await pool.send(envelope, raw);
    expect(server.texts).toEqual(['.\n..two dots\n.\n']);
  });

  it('fails only the refused message and goes on using the session', async () => {
    server = await startServer();
    pool = new SmtpPool({ url: server.url, maxConnections: 1 });
    const refused = mail('refused@example.test', 'bounce');
    const fine = mail('ada@example.test', 'arrives');
    const results = await Promise.allSettled([
      pool.send(refused.envelope, refused.raw),
      pool.send(fine.envelope, fine.raw),
    ]);
    expect(results[0]).toMatchObject({ status: 'rejected', reason: { responseCode: 550 } });
    expect(results[1].status).toBe('fulfilled');
    expect(server.texts.map((t) => t.trim())).toEqual(['arrives']);
    expect(server.sessions).toBe(1);
  });

  it('opens a new session when the server closed the idle one', async () => {
    // Long enough that a busy machine still completes the first session within it.
    server = await startServer({ socketTimeout: 1000 });
    pool = new SmtpPool({ url: server.url, maxConnections: 1 });
    const first = mail('ada@example.test', 'first');
    await pool.send(first.envelope, first.raw);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const second = mail('ada@example.test', 'second');
    await pool.send(second.envelope, second.raw);
    expect(server.texts.map((t) => t.trim())).toEqual(['first', 'second']);
    expect(server.sessions).toBe(2);
  });

  it('refuses sends once closed', async () => {
    server = await startServer();
    pool = new SmtpPool({ url: server.url, maxConnections: 1 });
    pool.close();
    const { envelope, raw } = mail('ada@example.test', 'late');
    await expect(pool.send(envelope, raw)).rejects.toThrow('closed');
  });
});
