import type { LoadWindow } from './alert-load.js';
import type { Tally } from './observer.js';

/** One minute of the run, as printed. */
export interface MinuteRow {
  minute: number;
  /** The machine's 1-minute load average at the end of the minute. */
  loadAverage: number;
  /** CPU of each process over the minute, in % of one core. */
  cpuApi: number;
  cpuWorker: number;
  load: LoadWindow;
  rssApi: number;
  rssWorker: number;
  /** The lowest of the samples taken every 5 s in the minute. */
  rssFloor: { api: number; worker: number };
  heapApi: number;
  heapWorker: number;
  /** What the database gained in the minute. */
  got: Tally;
  pushes: number;
  emailsAtSink: number;
  queue: { waiting: number; active: number; delayed: number };
  jobsFailed: number;
  pageLateness: { p50: number; p99: number };
  /** The worker's escalation_step_lateness_seconds bucket holding the minute's p99, if it has it. */
  stepLatenessP99: string | null;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const fixed = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toFixed(digits) : 'n/a';

export function formatCodes(codes: Map<string, number>): string {
  return [...codes].map(([code, n]) => `${code} ×${n}`).join(', ');
}

const COLUMNS: Array<[string, (row: MinuteRow) => string]> = [
  ['min', (r) => String(r.minute)],
  ['requests', (r) => String(r.load.requests)],
  ['alerts', (r) => String(r.load.alerts)],
  ['late', (r) => String(r.load.late)],
  ['errors', (r) => String([...r.load.errors.values()].reduce((a, b) => a + b, 0))],
  ['p50 ms', (r) => fixed(percentile(r.load.latencies, 50), 1)],
  ['p99 ms', (r) => fixed(percentile(r.load.latencies, 99), 1)],
  ['CPU API %', (r) => fixed(r.cpuApi)],
  ['CPU worker %', (r) => fixed(r.cpuWorker)],
  ['RSS API', (r) => fixed(r.rssApi, 1)],
  ['RSS worker', (r) => fixed(r.rssWorker, 1)],
  ['RSS min API', (r) => fixed(r.rssFloor.api, 1)],
  ['RSS min worker', (r) => fixed(r.rssFloor.worker, 1)],
  ['heap API', (r) => fixed(r.heapApi, 1)],
  ['heap worker', (r) => fixed(r.heapWorker, 1)],
  ['fired', (r) => String(r.got.fired)],
  ['resolved', (r) => String(r.got.resolved)],
  ['notifications', (r) => String(r.got.notifications)],
  ['pushes', (r) => String(r.pushes)],
  ['e-mails', (r) => String(r.emailsAtSink)],
  ['pages', (r) => String(r.got.pagesSent)],
  ['esc opened', (r) => String(r.got.escalationsOpened)],
  ['esc ended', (r) => String(r.got.escalationsEnded)],
  ['queue w/a/d', (r) => `${r.queue.waiting}/${r.queue.active}/${r.queue.delayed}`],
  ['step late p99 s', (r) => r.stepLatenessP99 ?? 'n/a'],
  ['page late p50/p99 ms', (r) => `${fixed(r.pageLateness.p50)}/${fixed(r.pageLateness.p99)}`],
  ['job fails', (r) => String(r.jobsFailed)],
  ['load', (r) => fixed(r.loadAverage, 1)],
];

export function tableHeader(): string {
  return COLUMNS.map(([title]) => title).join(' | ');
}

/** The minute's row, and a line naming the error codes when there were any. */
export function tableRow(row: MinuteRow): string {
  const line = COLUMNS.map(([title, cell]) => cell(row).padStart(title.length)).join(' | ');
  return row.load.errors.size > 0 ? `${line}\n    errors: ${formatCodes(row.load.errors)}` : line;
}

/** What the columns mean, printed before the table. */
export const COLUMN_NOTES = [
  "late: requests sent more than 10 ms after their scheduled instant; p50/p99: ingest answer time from the request's scheduled instant",
  "CPU: % of one core over the minute; RSS and heap in MiB at the end of the minute (VmRSS from /proc, heap used from each process's /metrics); RSS min: the lowest of samples every 5 s in the minute",
  "e-mails: received by the SMTP server; pages: escalation pages delivered; queue: BullMQ jobs waiting, active and delayed (all queues, from the worker's /metrics)",
  "step late: the bucket of the worker's escalation_step_lateness_seconds holding the minute's p99 (n/a without that metric); page late: from the due instant until the page was delivered (database); load: the machine's 1-minute load average",
];

export function growthPercent(first: number, last: number): number {
  return ((last - first) / first) * 100;
}
