import type pg from 'pg';

/** Running totals read from the database: what the people got and what the engine did. */
export interface Tally {
  notifications: number;
  fired: number;
  resolved: number;
  escalationsOpened: number;
  /** Resolved, acknowledged or exhausted. */
  escalationsEnded: number;
  pagesSent: number;
  pagesPending: number;
  pagesFailed: number;
  /** E-mails handed to the mail queue: instant e-mails of notifications and e-mail pages. */
  emailsQueued: number;
}

/** Fired counts first firings and refirings alike. */
const TALLY = `
SELECT (SELECT count(*) FROM notification)::int AS notifications,
       (SELECT count(*) FROM alert_event WHERE kind IN ('fired', 'refired'))::int AS fired,
       (SELECT count(*) FROM alert_event WHERE kind = 'resolved')::int AS resolved,
       (SELECT count(*) FROM escalation_instance)::int AS "escalationsOpened",
       (SELECT count(*) FROM escalation_instance WHERE state <> 'active')::int AS "escalationsEnded",
       p.sent AS "pagesSent", p.pending AS "pagesPending", p.failed AS "pagesFailed",
       (SELECT count(*) FROM delivery
         WHERE source = 'notification' AND channel = 'email'
           AND status IN ('pending', 'sent'))::int + p.emails AS "emailsQueued"
  FROM (SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent,
               count(*) FILTER (WHERE status = 'pending')::int AS pending,
               count(*) FILTER (WHERE status = 'failed')::int AS failed,
               count(*) FILTER (WHERE status = 'sent' AND channel = 'email')::int AS emails
          FROM delivery WHERE source = 'escalation_page') p`;

export async function readTally(db: pg.Client): Promise<Tally> {
  return (await db.query<Tally>(TALLY)).rows[0];
}

export function tallyDelta(after: Tally, before: Tally): Tally {
  const delta = { ...after };
  for (const key of Object.keys(after) as Array<keyof Tally>) delta[key] -= before[key];
  return delta;
}

/** Notifications per account, to know how many pushes the sockets should have received. */
export async function notificationsByAccount(db: pg.Client): Promise<Map<string, number>> {
  const { rows } = await db.query<{ account_id: string; n: number }>(
    'SELECT account_id, count(*)::int AS n FROM notification GROUP BY account_id',
  );
  return new Map(rows.map((r) => [r.account_id, r.n]));
}

/**
 * Page lateness (from the step's due instant until the page was delivered) of the pages
 * delivered in [from, to), p50 and p99 in ms.
 */
export async function pageLateness(
  db: pg.Client,
  from: Date,
  to: Date,
): Promise<{ p50: number; p99: number }> {
  const { rows } = await db.query<{ p: Array<number | null> | null }>(
    `SELECT percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP
              (ORDER BY extract(epoch FROM finished_at - due_at) * 1000) AS p
       FROM delivery
      WHERE source = 'escalation_page' AND status = 'sent'
        AND finished_at >= $1 AND finished_at < $2`,
    [from, to],
  );
  const [p50, p99] = rows[0].p ?? [null, null];
  return { p50: p50 ?? NaN, p99: p99 ?? NaN };
}

/** The samples of a Prometheus text exposition, as name → [labels, value]. */
export type Samples = Map<string, Array<{ labels: Record<string, string>; value: number }>>;

export async function scrape(url: string): Promise<Samples> {
  const samples: Samples = new Map();
  const res = await fetch(`${url}/metrics`);
  if (!res.ok) throw new Error(`${url}/metrics: ${res.status}`);
  for (const line of (await res.text()).split('\n')) {
    const found = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!found) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (found[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[key] = value;
    const list = samples.get(found[1]) ?? [];
    list.push({ labels, value: Number(found[3]) });
    samples.set(found[1], list);
  }
  return samples;
}

/** The sum of a metric's samples whose labels match `where`. */
export function sum(samples: Samples, name: string, where: Record<string, string[]> = {}): number {
  return (samples.get(name) ?? [])
    .filter(({ labels }) =>
      Object.entries(where).every(([key, values]) => values.includes(labels[key])),
    )
    .reduce((total, { value }) => total + value, 0);
}

/**
 * The upper bound of the bucket holding quantile `q` of what a histogram observed between two
 * scrapes ("≤ 0.25"); null when the metric is absent or observed nothing in between.
 */
export function bucketQuantile(
  before: Samples,
  after: Samples,
  name: string,
  q: number,
): string | null {
  const buckets = (samples: Samples) =>
    new Map((samples.get(`${name}_bucket`) ?? []).map((s) => [s.labels.le, s.value]));
  const [then, now] = [buckets(before), buckets(after)];
  const total = (now.get('+Inf') ?? 0) - (then.get('+Inf') ?? 0);
  if (total <= 0) return null;
  const bounds = [...now.keys()].sort((a, b) => Number(a) - Number(b));
  const bound = bounds.find((le) => (now.get(le) ?? 0) - (then.get(le) ?? 0) >= q * total);
  return bound === '+Inf' ? `> ${bounds.at(-2)}` : `≤ ${bound}`;
}
