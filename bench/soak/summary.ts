import { loadavg } from 'node:os';
import type { CableClients } from './cable-clients.js';
import type { Tally } from './observer.js';
import { formatCodes, growthPercent, type MinuteRow, percentile } from './report.js';
import type { ServiceProcess } from './service-process.js';
import { type SoakSettings, TARGET_ERRORS, TARGET_RSS_GROWTH_PERCENT } from './settings.js';

/** What a run left behind, from the start of the load to the end of the drain. */
export interface Outcome {
  rows: MinuteRow[];
  drained: boolean;
  got: Tally;
  notificationsByAccount: Map<string, number>;
  baselineByAccount: Map<string, number>;
  emailsAtSink: number;
  pushes: number;
  jobsFailed: number;
}

export interface Observed {
  settings: SoakSettings;
  api: ServiceProcess;
  worker: ServiceProcess;
  sockets: CableClients;
}

const fixed = (value: number, digits = 1) =>
  Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
const verdict = (met: boolean) => (met ? 'met' : 'MISSED');

/** Pushes the sockets should have had: each new notification once per socket of its account. */
function expectedPushes(run: Observed, outcome: Outcome): number {
  let expected = 0;
  for (const [account, n] of outcome.notificationsByAccount) {
    const created = n - (outcome.baselineByAccount.get(account) ?? 0);
    expected += created * (run.sockets.sockets.get(account) ?? 0);
  }
  return expected;
}

/**
 * Growth from the end of minute 1 to the end (the target), and of the lowest sample from
 * minute 2 (the start-up firings are through by then) to the last minute: an end-of-minute
 * sample rises and falls with garbage not yet collected, the lowest one follows what is held.
 */
function growth(
  rows: MinuteRow[],
  rss: (row: MinuteRow) => number,
  floor: (row: MinuteRow) => number,
) {
  const first = rss(rows[0]);
  const last = rss(rows[rows.length - 1]);
  const floorFrom = floor(rows[Math.min(1, rows.length - 1)]);
  const floorTo = floor(rows[rows.length - 1]);
  const percent = growthPercent(first, last);
  return {
    first,
    last,
    percent,
    floorFrom,
    floorTo,
    floorPercent: growthPercent(floorFrom, floorTo),
    met: percent < TARGET_RSS_GROWTH_PERCENT,
  };
}

const describeGrowth = (name: string, g: ReturnType<typeof growth>) =>
  `${name} ${fixed(g.first)} MiB after minute 1, ${fixed(g.last)} MiB at the end ` +
  `(${fixed(g.percent)} %; lowest sample ${fixed(g.floorFrom)} MiB in minute 2, ` +
  `${fixed(g.floorTo)} MiB in the last: ${fixed(g.floorPercent)} %)`;

/** The summary lines and whether every target was met. */
export function summarize(run: Observed, outcome: Outcome): { lines: string[]; met: boolean } {
  const { rows, got } = outcome;
  const codes = new Map<string, number>();
  for (const row of rows)
    for (const [code, n] of row.load.errors) codes.set(code, (codes.get(code) ?? 0) + n);
  const ingestErrors = [...codes.values()].reduce((a, b) => a + b, 0);
  const latencies = rows.flatMap((r) => r.load.latencies).sort((a, b) => a - b);
  const expected = expectedPushes(run, outcome);
  const missingPushes = Math.max(0, expected - outcome.pushes);
  const errors = {
    ingest: ingestErrors,
    'failed jobs': outcome.jobsFailed,
    'failed pages': got.pagesFailed,
    'sockets dropped': run.sockets.dropped.length,
    'pushes missing': missingPushes,
    'API error log lines': run.api.errors.count,
    'worker error log lines': run.worker.errors.count,
  };
  const errorTotal = Object.values(errors).reduce((a, b) => a + b, 0);
  const api = growth(
    rows,
    (r) => r.rssApi,
    (r) => r.rssFloor.api,
  );
  const worker = growth(
    rows,
    (r) => r.rssWorker,
    (r) => r.rssFloor.worker,
  );
  const total = (pick: (row: MinuteRow) => number) => rows.reduce((a, r) => a + pick(r), 0);
  const lines = [
    `soak: ${rows.length} min at ${run.settings.rate} alerts/s; load average at the end ` +
      loadavg()
        .map((l) => l.toFixed(1))
        .join(' '),
    `  sent ${total((r) => r.load.requests)} requests, ${total((r) => r.load.alerts)} alerts; ` +
      `${total((r) => r.load.late)} sent late (max ${fixed(Math.max(...rows.map((r) => r.load.maxSendLagMs)))} ms behind); ` +
      `ingest p50 ${fixed(percentile(latencies, 50))} ms, p99 ${fixed(percentile(latencies, 99))} ms, ` +
      `max ${fixed(latencies.at(-1) ?? NaN)} ms`,
    `  errors: ${errorTotal} — ` +
      Object.entries(errors)
        .map(([what, n]) => `${what} ${n}`)
        .join(', ') +
      (codes.size > 0 ? `; ingest codes: ${formatCodes(codes)}` : '') +
      `; warning log lines (not counted): API ${run.api.warnings.count}, worker ${run.worker.warnings.count}`,
    ...[run.api, run.worker].flatMap((service) =>
      (['errors', 'warnings'] as const).flatMap((kind) =>
        [...service[kind].samples].map(
          ([message, { count, firstAtS }]) =>
            `    ${service.name} logged ×${count} (${kind === 'errors' ? 'error' : 'warning'}, first ` +
            `${firstAtS.toFixed(1)} s after it started): ${message}`,
        ),
      ),
    ),
    ...run.sockets.dropped.slice(0, 5).map((close) => `    socket closed: ${close}`),
    `  the people got: ${got.notifications} notifications, ${outcome.pushes} pushes of ${expected} ` +
      `expected on ${run.settings.sockets} sockets, ${outcome.emailsAtSink} e-mails at the SMTP ` +
      `server (${got.emailsQueued} handed to the mail queue), ${got.pagesSent} pages; ${got.fired} firings, ` +
      `${got.resolved} resolutions, ${got.escalationsOpened} escalations opened, ` +
      `${got.escalationsEnded} ended`,
    `  after the load: ${outcome.drained ? 'queues drained' : 'queues NOT drained'}, ` +
      `${got.pagesPending} pages pending`,
    `  RSS ${describeGrowth('API', api)}`,
    `  RSS ${describeGrowth('worker', worker)}`,
    `  heap used: API ${fixed(rows[0].heapApi)} → ${fixed(rows.at(-1)!.heapApi)} MiB, ` +
      `worker ${fixed(rows[0].heapWorker)} → ${fixed(rows.at(-1)!.heapWorker)} MiB`,
    `targets: ${TARGET_ERRORS} errors — ${verdict(errorTotal === TARGET_ERRORS)}; RSS growth ` +
      `< ${TARGET_RSS_GROWTH_PERCENT} % after minute 1 — API ${verdict(api.met)}, worker ${verdict(worker.met)}`,
  ];
  return { lines, met: errorTotal === TARGET_ERRORS && api.met && worker.met };
}
