import { performance } from 'node:perf_hooks';
import { AlertEventKind } from '@platform/alerting';
import { EscalationInstancesRepository, EscalationJobs, STEP_BATCH } from '@platform/escalation';
import { REDIS } from '@platform/queue';
import type { TestApp } from '@platform/testing';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { CpuMeter, type CpuSeconds } from '../notifications/cpu-usage.js';
import type { MailArrival, SmtpCounter } from '../notifications/smtp-counter.js';
import { residentMemory } from '../operator/operator-process.js';
import { CommitWatch } from './commit-watch.js';
import { envNumber, log, sleep, type Spread, spread } from './figures.js';
import { seed } from './seed.js';
import { CableListeners } from './sockets.js';

export const ESCALATIONS = envNumber('BENCH_ESCALATIONS', 10_000);
/** Time between enqueueing the step jobs and the moment every step falls due. */
const LEAD_MS = envNumber('BENCH_ESCALATION_LEAD_MS', 5_000);
export const TIMEOUT_MS = envNumber('BENCH_ESCALATION_TIMEOUT_S', 120) * 1000;
/** How often the bench looks at what it has received (no query: see CommitWatch). */
const POLL_MS = 25;

/**
 * The plan of one batch as the engine runs it, in a transaction that is rolled back. Every
 * seeded step pages a member, so the recipients are the members themselves, each notified in-app.
 */
async function explainBatch(db: DataSource, at: Date): Promise<void> {
  const targets = await new EscalationInstancesRepository(db).dueTargets(at, ESCALATIONS);
  const recipients = targets.map((t) => ({
    targetKey: t.target_key,
    accountId: t.step.target_member_id,
    contactLabel: null,
    phoneNumber: null,
    notifyInApp: true,
  }));
  const runner = db.createQueryRunner();
  await runner.startTransaction();
  try {
    // The batch statement is a named one, run through the pool under the DataSource.
    const explain = async ({ text, values }: { text: string; values: unknown[] }) => {
      const plan: Array<{ 'QUERY PLAN': string }> = await runner.query(
        `EXPLAIN (ANALYZE, BUFFERS, WAL) ${text}`,
        values,
      );
      for (const row of plan) log(`    ${row['QUERY PLAN']}`);
      return {
        rows: [
          { locked: 0, ran: 0, in_app_page_ids: '', page_ids: '', notified: [], next_run_ats: [] },
        ],
      };
    };
    const explaining = { driver: { master: { query: explain } } } as unknown as DataSource;
    await new EscalationInstancesRepository(explaining).runSteps(
      at,
      STEP_BATCH,
      targets.map((t) => t.target_key),
      recipients,
      AlertEventKind.EscalationExhausted,
    );
  } finally {
    await runner.rollbackTransaction();
    await runner.release();
  }
}

/** What one burst measured, from its due instant (all times in ms). */
export interface BurstFigures {
  /** Steps of the burst's escalations run, and their deliveries not sent once all settled. */
  ran: number;
  unsent: number;
  memberSockets: number;
  pages: Spread;
  notifications: Spread;
  inAppSent: Spread;
  frames: Spread;
  mails: Spread;
  /** Whether every frame and every e-mail arrived before the timeout. */
  allFrames: boolean;
  allMails: boolean;
  cpu: CpuSeconds;
  peakConnections: number;
  workerPeakMiB: string[];
  droppedSockets: string[];
}

/**
 * Opens ESCALATIONS escalations of an organization of their own (members `@domain`) whose first
 * step (a member paged in-app and by e-mail) falls due at the same instant, with the step jobs
 * enqueued as the engine enqueues them, run by the worker processes, every paged member's socket
 * connected before the due instant. From the due instant to:
 * - the page rows committed, and the in-app notification rows committed: both as their
 *   commits' notifications reach this process (CommitWatch);
 * - the in-app page marked sent (its delivery's finished_at, recorded by the worker once the
 *   notification row is written and pushed);
 * - the `created` frame's arrival at the member's socket;
 * - the page e-mail's acceptance at the SMTP server (end of DATA).
 * The second steps fall due five minutes later, after the bench.
 */
export async function burst(
  t: TestApp,
  smtp: SmtpCounter,
  workerPids: readonly number[],
  options: { domain: string; explain: boolean },
): Promise<BurstFigures> {
  const db = t.get(DataSource);
  const setup = performance.now();
  const seededDue = new Date(Date.now() + 60_000);
  const { organizationId, memberIds } = await seed(t, ESCALATIONS, seededDue, options.domain);
  await db.query('ANALYZE');
  log(`${ESCALATIONS} escalations seeded in ${((performance.now() - setup) / 1000).toFixed(1)} s`);
  if (options.explain) await explainBatch(db, seededDue);
  const listeners = await CableListeners.open(t, memberIds);
  log(`${memberIds.length} member sockets connected`);
  const pagesExpected = 2 * ESCALATIONS;
  let rows: CommitWatch | null = null;
  try {
    // Due LEAD_MS from now: the jobs go in as the engine's delayed jobs, on the real time.
    const due = Date.now() + LEAD_MS;
    const dueAts = await db.query<Array<{ due_at: Date }>>(
      `WITH moved AS (
         UPDATE escalation_due d SET due_at = $1
           FROM escalation_instance i JOIN project p ON p.id = i.project_id
          WHERE i.id = d.instance_id AND p.organization_id = $2
         RETURNING d.due_at
       )
       SELECT due_at FROM moved`,
      [new Date(due), organizationId],
    );
    const watch = await CommitWatch.start(db, [
      { name: 'pages', table: 'escalation_page' },
      { name: 'notifications', table: 'notification', organizationId },
    ]);
    rows = watch;
    await t.get(EscalationJobs).steps(dueAts.map((r) => r.due_at));
    const cpu = await CpuMeter.start([...workerPids], db, t.get<Redis>(REDIS));
    log(`step jobs enqueued; due in ${((due - Date.now()) / 1000).toFixed(1)} s`);

    const deadline = due + TIMEOUT_MS;
    const ours = (mail: MailArrival) => mail.to.every((to) => to.endsWith(`@${options.domain}`));
    const mailsBefore = smtp.arrivals.items.length;
    const mailsDone = smtp.arrivals.untilCount(mailsBefore, ours, ESCALATIONS, deadline);
    const framesDone = listeners.waitFor('alert_escalation', ESCALATIONS, deadline);

    const rowsDone = (async () => {
      while (
        Date.now() < deadline &&
        (watch.count('pages') < pagesExpected || watch.count('notifications') < ESCALATIONS)
      )
        await sleep(POLL_MS);
    })();
    const [allFrames, allMails] = await Promise.all([framesDone, mailsDone, rowsDone]);
    const cpuSeconds = await cpu.stop();
    const ofBurst = `source = 'escalation_page'
       AND id IN (SELECT pg.id FROM escalation_page pg JOIN project pr ON pr.id = pg.project_id
                   WHERE pr.organization_id = $1)`;
    // In-app outcomes are recorded once the workers' page jobs pause: wait for them (finished_at is
    // the instant each page was sent, whenever it was recorded).
    for (const settled = Date.now() + 30_000; Date.now() < settled; await sleep(100)) {
      const [{ pending }] = await db.query<Array<{ pending: number }>>(
        `SELECT count(*)::int AS pending FROM delivery WHERE ${ofBurst} AND status = 'pending'`,
        [organizationId],
      );
      if (pending === 0) break;
    }

    const sent = await db.query<Array<{ late: number }>>(
      `SELECT extract(epoch FROM finished_at - due_at) * 1000 AS late FROM delivery
        WHERE ${ofBurst} AND status = 'sent' AND channel = 'in_app'`,
      [organizationId],
    );
    const [{ ran, unsent }] = await db.query<Array<{ ran: number; unsent: number }>>(
      `SELECT (SELECT count(*)::int FROM escalation_due d
                 JOIN escalation_instance i ON i.id = d.instance_id
                 JOIN project pr ON pr.id = i.project_id
                WHERE d.step_index = 1 AND pr.organization_id = $1) AS ran,
              (SELECT count(*)::int FROM delivery WHERE ${ofBurst} AND status <> 'sent') AS unsent`,
      [organizationId],
    );
    const late = (name: string) => watch.times(name).map((at) => Math.max(0, at - due));
    return {
      ran,
      unsent,
      memberSockets: memberIds.length,
      pages: spread(late('pages')),
      notifications: spread(late('notifications')),
      inAppSent: spread(sent.map((r) => Number(r.late))),
      frames: spread(listeners.of('alert_escalation').map((frame) => frame.at - due)),
      mails: spread(
        smtp.arrivals.items
          .slice(mailsBefore)
          .filter(ours)
          .map((mail) => mail.at - due),
      ),
      allFrames,
      allMails,
      cpu: cpuSeconds,
      peakConnections: cpu.peakConnections,
      workerPeakMiB: workerPids.map((pid) => residentMemory(pid)?.peakMiB.toFixed(0) ?? 'n/a'),
      droppedSockets: [...listeners.dropped],
    };
  } finally {
    await rows?.stop();
    await listeners.close();
  }
}
