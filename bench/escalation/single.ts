import type { TestApp } from '@platform/testing';
import type { SmtpCounter } from '../notifications/smtp-counter.js';
import { alertCustomer, firingAlert, ingest } from './customer.js';
import { Block, envNumber, log, spread, spreadText } from './figures.js';
import { CableListeners } from './sockets.js';

const INGESTS = envNumber('BENCH_SINGLE_ALERTS', 50);
/** Ingests before the measured ones, not counted: the first ones of a process warm its paths. */
const WARMUP = envNumber('BENCH_SINGLE_WARMUP', 5);
const TIMEOUT_MS = envNumber('BENCH_SINGLE_TIMEOUT_S', 10) * 1000;
const DOMAIN = 'single.bench.example';

/**
 * The single-alert figure: INGESTS sequential ingests of one new alert each, on a route that
 * notifies the organization's one admin in-app and by e-mail. Each is timed from the start of
 * the ingest request to its `created` frame at the admin's socket and to its e-mail's
 * acceptance at the SMTP server (frame and e-mail told apart by the alert's name); the next
 * ingest starts once both arrived (or after TIMEOUT_MS).
 */
export async function singlePhase(t: TestApp, smtp: SmtpCounter): Promise<Block> {
  const customer = await alertCustomer(t, 'Single-alert bench', DOMAIN, 1);
  const listeners = await CableListeners.open(t, customer.adminIds);
  const block = new Block(
    `single alert: ${INGESTS} sequential ingests of one new alert, route to 1 org admin ` +
      `in-app and by e-mail (after ${WARMUP} unmeasured)`,
  );
  try {
    const pushes: number[] = [];
    const mails: number[] = [];
    for (let i = -WARMUP; i < INGESTS; i += 1) {
      const alertname = `SingleAlert${String(i + WARMUP).padStart(5, '0')}`;
      const framesFrom = listeners.frames.items.length;
      const mailsFrom = smtp.arrivals.items.length;
      const answer = await ingest(t, customer, [
        firingAlert(alertname, `single-${alertname}`, 'one new alert'),
      ]);
      const deadline = answer.startedAt + TIMEOUT_MS;
      const [frame, mail] = await Promise.all([
        listeners.frames
          .until(
            (items) => items.slice(framesFrom).some((f) => f.alertname === alertname),
            deadline,
          )
          .then(() => listeners.frames.items.find((f) => f.alertname === alertname)),
        smtp.arrivals
          .until(
            (items) => items.slice(mailsFrom).some((m) => m.subject.includes(`] ${alertname}:`)),
            deadline,
          )
          .then(() => smtp.arrivals.items.find((m) => m.subject.includes(`] ${alertname}:`))),
      ]);
      if (i < 0) continue;
      if (frame) pushes.push(frame.at - answer.startedAt);
      if (mail) mails.push(mail.at - answer.startedAt);
    }
    log(`single: ${pushes.length} frames, ${mails.length} e-mails`);
    const push = spread(pushes);
    const mail = spread(mails);
    const missing = (n: number) => (n < INGESTS ? ` (${INGESTS - n} missing)` : '');
    block.line(
      `ingest start → in-app frame: ${spreadText(push)}, n=${push.n}${missing(push.n)} ` +
        '(earlier main: p50 21 ms, p99 67 ms)',
    );
    block.line(
      `ingest start → e-mail accepted: ${spreadText(mail)}, n=${mail.n}${missing(mail.n)} ` +
        '(earlier main: p50 27 ms, p99 77 ms)',
    );
    if (listeners.dropped.length > 0)
      block.line(`sockets closed by the server: ${listeners.dropped.join(', ')}`);
    return block;
  } finally {
    await listeners.close();
  }
}
