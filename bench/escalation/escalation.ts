import { performance } from 'node:perf_hooks';
import { AlertEventKind } from '@platform/alerting';
import { EscalationInstancesRepository, EscalationJobs, STEP_BATCH } from '@platform/escalation';
import { REDIS } from '@platform/queue';
import type { TestApp } from '@platform/testing';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { CpuMeter } from '../notifications/cpu-usage.js';
import { residentMemory } from '../operator/operator-process.js';
import { CommitWatch } from './commit-watch.js';
import type { MailArrival, SmtpCounter } from '../notifications/smtp-counter.js';
import { Block, envNumber, log, sleep, spread, spreadText } from './figures.js';
import { seed } from './seed.js';
import { CableListeners } from './sockets.js';

const ESCALATIONS = envNumber('BENCH_ESCALATIONS', 10_000);
/** Time between enqueueing the step jobs and the moment every step falls due. */
const LEAD_MS = envNumber('BENCH_ESCALATION_LEAD_MS', 5_000);
const TIMEOUT_MS = envNumber('BENCH_ESCALATION_TIMEOUT_S', 120) * 1000;
/** How often the bench looks at what it has received (no query: see CommitWatch). */
const POLL_MS = 25;
/** Print the plan of one batch of steps (EXPLAIN ANALYZE, rolled back) before the run. */
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const DOMAIN = 'escalation.bench.example';

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

/**
 * Opens ESCALATIONS escalations whose first step (a member paged in-app and by e-mail) falls
 * due at the same instant, with the step jobs enqueued as the engine enqueues them, run by the
 * worker processes, every paged member's socket connected before the due instant. From the
 * due instant to:
 * - the page rows committed, and the in-app notification rows committed: both as their
 *   commits' notifications reach this process (CommitWatch);
 * - the in-app page marked sent (its delivery's finished_at, recorded by the worker once the
 *   notification row is written and pushed);
 * - the `created` frame's arrival at the member's socket;
 * - the page e-mail's acceptance at the SMTP server (end of DATA).
 */
export async function escalationPhase(
  t: TestApp,
  smtp: SmtpCounter,
  workerPids: readonly number[],
): Promise<Block> {
  const workers = workerPids.length;
  const db = t.get(DataSource);
  const setup = performance.now();
  const seededDue = new Date(Date.now() + 60_000);
  const { organizationId, memberIds } = await seed(t, ESCALATIONS, seededDue, DOMAIN);
  await db.query('ANALYZE');
  log(`${ESCALATIONS} escalations seeded in ${((performance.now() - setup) / 1000).toFixed(1)} s`);
  if (EXPLAIN) await explainBatch(db, seededDue);
  const listeners = await CableListeners.open(t, memberIds);
  log(`${memberIds.length} member sockets connected`);
  const pagesExpected = 2 * ESCALATIONS;
  const block = new Block(
    `escalation: ${ESCALATIONS} steps due at the same instant, each paging a member in-app and ` +
      `by e-mail (${pagesExpected} pages), ${workers} worker processes, ${memberIds.length} member sockets`,
  );
  let rows: CommitWatch | null = null;
  try {
    // Due LEAD_MS from now: the jobs go in as the engine's delayed jobs, on the real time.
    const due = Date.now() + LEAD_MS;
    await db.query(`UPDATE escalation_due SET due_at = $1`, [new Date(due)]);
    const dueAts = await db.query<Array<{ due_at: Date }>>('SELECT due_at FROM escalation_due');
    const watch = await CommitWatch.start(db, [
      { name: 'pages', table: 'escalation_page' },
      { name: 'notifications', table: 'notification', organizationId },
    ]);
    rows = watch;
    await t.get(EscalationJobs).steps(dueAts.map((r) => r.due_at));
    const cpu = await CpuMeter.start([...workerPids], db, t.get<Redis>(REDIS));
    log(`step jobs enqueued; due in ${((due - Date.now()) / 1000).toFixed(1)} s`);

    const deadline = due + TIMEOUT_MS;
    const ours = (mail: MailArrival) => mail.to.every((to) => to.endsWith(`@${DOMAIN}`));
    const mailsBefore = smtp.arrivals.items.length;
    let seenMails = 0;
    let checked = mailsBefore;
    const mailsDone = smtp.arrivals.until((items) => {
      for (; checked < items.length; checked += 1) if (ours(items[checked])) seenMails += 1;
      return seenMails >= ESCALATIONS;
    }, deadline);
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
    // In-app outcomes are recorded once the workers' page jobs pause: wait for them (finished_at is
    // the instant each page was sent, whenever it was recorded).
    for (const settled = Date.now() + 30_000; Date.now() < settled; await sleep(100)) {
      const [{ pending }] = await db.query<Array<{ pending: number }>>(
        `SELECT count(*)::int AS pending FROM delivery
          WHERE source = 'escalation_page' AND status = 'pending'`,
      );
      if (pending === 0) break;
    }

    const sent = await db.query<Array<{ late: number }>>(
      `SELECT extract(epoch FROM finished_at - due_at) * 1000 AS late FROM delivery
        WHERE source = 'escalation_page' AND status = 'sent' AND channel = 'in_app'`,
    );
    const [{ ran, unsent }] = await db.query<Array<{ ran: number; unsent: number }>>(
      `SELECT (SELECT count(*)::int FROM escalation_due WHERE step_index = 1) AS ran,
              (SELECT count(*)::int FROM delivery
                WHERE source = 'escalation_page' AND status <> 'sent') AS unsent`,
    );
    const late = (name: string) => watch.times(name).map((at) => Math.max(0, at - due));
    const w = spread(late('pages'));
    const c = spread(late('notifications'));
    const s = spread(sent.map((r) => Number(r.late)));
    const f = spread(listeners.of('alert_escalation').map((frame) => frame.at - due));
    const m = spread(
      smtp.arrivals.items
        .slice(mailsBefore)
        .filter(ours)
        .map((mail) => mail.at - due),
    );
    const stopped = (done: boolean) => (done ? '' : ` (stopped after ${TIMEOUT_MS / 1000} s)`);
    const span = w.max / 1000;

    block.line(
      `steps run: ${ran}, pages written: ${w.n}/${pagesExpected} (${unsent} not sent yet), in-app ` +
        `notifications: ${c.n}/${ESCALATIONS}, frames: ${f.n}/${ESCALATIONS}, e-mails: ${m.n}/${ESCALATIONS}`,
    );
    block.target(
      `due → page row committed: ${spreadText(w)}`,
      'p99 < 250 ms',
      w.n === pagesExpected && w.p99 < 250,
    );
    block.line(
      `pages/s: ${span > 0 ? Math.round(w.n / span) : 'n/a'} (all ${w.n} within ${span.toFixed(3)} s of the due time)`,
    );
    block.line(`due → in-app notification row committed: ${spreadText(c)}`);
    block.line(`due → in-app page sent (delivery.finished_at): ${spreadText(s)}, n=${s.n}`);
    block.target(
      `due → NotificationsChannel frame at the socket: ${spreadText(f)}${stopped(allFrames)}`,
      'p99 < 1 s',
      allFrames && f.n === ESCALATIONS && f.p99 < 1_000,
    );
    block.target(
      `due → e-mail accepted by the SMTP server: ${spreadText(m)}${stopped(allMails)}`,
      'p99 < 3 s',
      allMails && m.n === ESCALATIONS && m.p99 < 3_000,
    );
    block.line(
      `from the step jobs queued to the last frame and e-mail: ${CpuMeter.format(cpuSeconds)}`,
    );
    const peaks = workerPids.map((pid) => residentMemory(pid)?.peakMiB.toFixed(0) ?? 'n/a');
    block.line(
      `worker peak resident memory: ${peaks.join(', ')} MiB; connections to the database at ` +
        `most ${cpu.peakConnections} (sampled every 500 ms)`,
    );
    if (listeners.dropped.length > 0)
      block.line(`sockets closed by the server: ${listeners.dropped.join(', ')}`);
    return block;
  } finally {
    await rows?.stop();
    await listeners.close();
  }
}
