import 'reflect-metadata';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@platform/core';
import { MailTransport } from '@platform/mail';

/*
 * What one e-mail costs the sending process: MESSAGES e-mails (text and HTML, as notify()
 * sends them) through MailTransport into an SMTP server in another process, CONCURRENCY at a
 * time as a delivery batch sends them; prints CPU per message and messages per second.
 */

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 5000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const SERVER = fileURLToPath(new URL('./smtp-server.js', import.meta.url));

function startServer(): Promise<{ url: string; stop(): void }> {
  const child = fork(SERVER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (port: number) =>
      resolve({ url: `smtp://127.0.0.1:${port}`, stop: () => child.kill() }),
    );
    child.once('error', reject);
  });
}

const message = (n: number) => ({
  to: `member-${n}@example.test`,
  subject: `[critical] Disk almost full on db-${n % 17} (route: production)`,
  text: `Alert DiskAlmostFull is firing since 12:00 UTC.\n\nAcknowledge: https://cloud.example.test/alerts/ack/${n}?sig=0123456789abcdef\n`,
  html: `<p>Alert <b>DiskAlmostFull</b> is firing since 12:00 UTC.</p><p><a href="https://cloud.example.test/alerts/ack/${n}?sig=0123456789abcdef">Acknowledge</a></p>`,
  messageKey: `bench:${n}`,
});

async function round(transport: MailTransport): Promise<{ cpuUs: number; perSecond: number }> {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < MESSAGES) await transport.send(message(next++));
    }),
  );
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return {
    cpuUs: (used.user + used.system) / MESSAGES,
    perSecond: (MESSAGES / wallMs) * 1000,
  };
}

const server = await startServer();
const transport = new MailTransport(
  loadConfig({ SMTP_URL: server.url, MAIL_FROM: 'Platform <platform@example.test>' }),
);
try {
  await round(transport); // warm-up: connections, JIT
  for (let n = 1; n <= ROUNDS; n += 1) {
    const { cpuUs, perSecond } = await round(transport);
    console.log(
      `round ${n}: ${MESSAGES} e-mails, ${cpuUs.toFixed(0)} µs CPU per e-mail, ${perSecond.toFixed(0)} e-mails/s`,
    );
  }
} finally {
  transport.onModuleDestroy();
  server.stop();
}
