import type { TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import type { MailArrival, SmtpCounter } from '../notifications/smtp-counter.js';
import { alertCustomer, firingAlert, ingest } from './customer.js';
import { Block, envNumber, log, ms, spread, spreadText } from './figures.js';
import { CableListeners } from './sockets.js';

const ALERTS = envNumber('BENCH_STORM_ALERTS', 1000);
const ADMINS = envNumber('BENCH_STORM_ADMINS', 5);
const TIMEOUT_MS = envNumber('BENCH_STORM_TIMEOUT_S', 60) * 1000;
const DOMAIN = 'storm.bench.example';
const ALERTNAME = 'StormAlert';
const FRAMES_WITHIN_MS = 1_000;
const MAILS_WITHIN_MS = 5_000;

/**
 * An ingest storm: ONE Alertmanager payload of ALERTS new distinct alerts for an organization
 * whose route notifies its ADMINS org admins in-app and by e-mail (ALERTS × ADMINS of each),
 * every admin's socket connected. Times run from the ingest's answer (epoch ms read by this
 * process) to each `created` frame's arrival at a socket and to each e-mail's acceptance at
 * the SMTP server (end of DATA), both stamped with the same clock in their threads.
 */
export async function stormPhase(t: TestApp, smtp: SmtpCounter): Promise<Block> {
  const customer = await alertCustomer(t, 'Storm bench', DOMAIN, ADMINS);
  const listeners = await CableListeners.open(t, customer.adminIds);
  const expected = ALERTS * customer.adminIds.length;
  const block = new Block(
    `storm: one Alertmanager payload of ${ALERTS} new alerts, route to ${customer.adminIds.length} ` +
      `org admins in-app and by e-mail (${expected} frames, ${expected} e-mails expected)`,
  );
  try {
    log(`storm: ${customer.adminIds.length} admin sockets connected`);
    const stormMail = (mail: MailArrival) =>
      mail.subject.includes(`] ${ALERTNAME}:`) && mail.to.every((to) => to.endsWith(`@${DOMAIN}`));
    const mailsBefore = smtp.arrivals.items.length;
    const mails = () => smtp.arrivals.items.slice(mailsBefore).filter(stormMail);

    const alerts = Array.from({ length: ALERTS }, (_, i) =>
      firingAlert(ALERTNAME, `storm-${i}`, `storm alert ${i}`),
    );
    const answer = await ingest(t, customer, alerts);
    const deadline = answer.answeredAt + TIMEOUT_MS;
    const framesDone = listeners.waitFor('alert_firing', expected, deadline);
    const mailsDone = smtp.arrivals.untilCount(mailsBefore, stormMail, expected, deadline);
    const [allFrames, allMails] = await Promise.all([framesDone, mailsDone]);

    const frames = listeners.of('alert_firing').map((f) => f.at - answer.answeredAt);
    const accepted = mails().map((m) => m.at - answer.answeredAt);
    const f = spread(frames);
    const m = spread(accepted);
    const [{ escalations }] = await t
      .get(DataSource)
      .query<Array<{ escalations: number }>>(
        'SELECT count(*)::int AS escalations FROM escalation_instance WHERE project_id = $1',
        [customer.projectId],
      );
    block.line(
      `ingest answered in ${ms(answer.answeredAt - answer.startedAt)} (${answer.processed} alerts processed); ` +
        `escalations opened: ${escalations}`,
    );
    block.line(
      `in-app frames: ${f.n}/${expected}${allFrames ? '' : ` (stopped after ${TIMEOUT_MS / 1000} s)`}; ` +
        `after the ingest answer: ${spreadText(f)}`,
    );
    block.target(
      `  last frame ${ms(f.max)} after the ingest answer`,
      `all ${expected} within ${ms(FRAMES_WITHIN_MS)}`,
      allFrames && f.n === expected && f.max < FRAMES_WITHIN_MS,
    );
    block.line(
      `e-mails accepted: ${m.n}/${expected}${allMails ? '' : ` (stopped after ${TIMEOUT_MS / 1000} s)`}; ` +
        `after the ingest answer: ${spreadText(m)}`,
    );
    block.target(
      `  last e-mail ${ms(m.max)} after the ingest answer`,
      `all ${expected} within ${ms(MAILS_WITHIN_MS)}`,
      allMails && m.n === expected && m.max < MAILS_WITHIN_MS,
    );
    if (listeners.dropped.length > 0)
      block.line(`sockets closed by the server: ${listeners.dropped.join(', ')}`);
    return block;
  } finally {
    await listeners.close();
  }
}
