import { CpuMeter } from '../notifications/cpu-usage.js';
import type { SmtpCounter } from '../notifications/smtp-counter.js';
import type { TestApp } from '@platform/testing';
import { burst, type BurstFigures, ESCALATIONS, TIMEOUT_MS } from './burst.js';
import { Block, envNumber, ms, spreadText } from './figures.js';

/** Print the plan of one batch of steps (EXPLAIN ANALYZE, rolled back) before the run. */
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
/** 0: measure only one burst, on workers that have not paged yet. */
const FIRST_BURST = envNumber('BENCH_ESCALATION_FIRST_BURST', 1) > 0;
const DOMAIN = 'escalation.bench.example';

/**
 * Two bursts of ESCALATIONS steps due at once (see `burst`), a few seconds apart, each for an
 * organization of its own. The first runs on worker processes that have not paged yet: V8
 * compiles the paging code (claims, settles, the page e-mail) while it runs, about a core-second
 * of each worker's CPU, so it is printed without targets. The second, on workers that have paged
 * before as a running deployment's have, is the one the targets are measured on.
 */
export async function escalationPhase(
  t: TestApp,
  smtp: SmtpCounter,
  workerPids: readonly number[],
): Promise<Block> {
  let first: BurstFigures | null = null;
  if (FIRST_BURST)
    first = await burst(t, smtp, workerPids, { domain: `first.${DOMAIN}`, explain: false });
  const b = await burst(t, smtp, workerPids, { domain: DOMAIN, explain: EXPLAIN });
  const pagesExpected = 2 * ESCALATIONS;
  const block = new Block(
    `escalation: ${ESCALATIONS} steps due at the same instant, each paging a member in-app and ` +
      `by e-mail (${pagesExpected} pages), ${workerPids.length} worker processes, ` +
      `${b.memberSockets} member sockets; the second of two such bursts`,
  );
  if (first)
    block.line(
      `first burst, on workers that had not paged yet (no target): frame p99 ${ms(first.frames.p99)}, ` +
        `e-mail p99 ${ms(first.mails.p99)}, ${first.frames.n} frames and ${first.mails.n} e-mails; ` +
        `${CpuMeter.format(first.cpu)}`,
    );
  const { pages: w, notifications: c, inAppSent: s, frames: f, mails: m } = b;
  const stopped = (done: boolean) => (done ? '' : ` (stopped after ${TIMEOUT_MS / 1000} s)`);
  const span = w.max / 1000;
  block.line(
    `steps run: ${b.ran}, pages written: ${w.n}/${pagesExpected} (${b.unsent} not sent yet), in-app ` +
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
    `due → NotificationsChannel frame at the socket: ${spreadText(f)}${stopped(b.allFrames)}`,
    'p99 < 1 s',
    b.allFrames && f.n === ESCALATIONS && f.p99 < 1_000,
  );
  block.target(
    `due → e-mail accepted by the SMTP server: ${spreadText(m)}${stopped(b.allMails)}`,
    'p99 < 3 s',
    b.allMails && m.n === ESCALATIONS && m.p99 < 3_000,
  );
  const mailSpan = (m.max - m.min) / 1000;
  block.line(
    `e-mails: the first accepted ${ms(m.min)} after the due time, then ` +
      `${mailSpan > 0 ? Math.round((m.n - 1) / mailSpan) : 'n/a'} a second to the last`,
  );
  block.line(`from the step jobs queued to the last frame and e-mail: ${CpuMeter.format(b.cpu)}`);
  block.line(
    `worker peak resident memory: ${b.workerPeakMiB.join(', ')} MiB; connections to the ` +
      `database at most ${b.peakConnections} (sampled every 500 ms)`,
  );
  if (b.droppedSockets.length > 0)
    block.line(`sockets closed by the server: ${b.droppedSockets.join(', ')}`);
  return block;
}
