/**
 * The hand-built data set of the insights tests, every row with its own timestamp so each
 * figure can be worked out by hand (the expectations beside the tests do so).
 */

/** Every window below is counted back from this instant. */
export const NOW = '2026-03-10T12:00:00.000Z';
// days=7 starts at 2026-03-03T12:00:00Z, days=30 at 2026-02-08T12:00:00Z, days=90 at
// 2025-12-10T12:00:00Z; a window includes its first instant.

/** Who acted: the team's owner and developer, an account deleted later, the contact NOC. */
export type Who = 'owner' | 'dev' | 'ghost' | 'NOC';

/** The hand-built data set; "ack n" is seconds from starts_at to the earliest acknowledgement. */
export const ALERTS: Array<
  [key: string, alertname: string | null, severity: string, startsAt: string, status: string]
> = [
  ['a1', 'DiskFull', 'critical', '2026-03-10T10:00:00Z', 'firing'], // ack 60
  ['a2', 'DiskFull', 'warning', '2026-03-09T23:30:00Z', 'resolved'], // ack 120 (e-mail first)
  ['a3', 'HighCpu', 'critical', '2026-03-09T08:00:00Z', 'resolved'], // ack 30 (the contact)
  ['a4', 'HighCpu', 'info', '2026-03-05T00:00:00Z', 'resolved'], // never acknowledged
  ['a5', null, 'high', '2026-03-03T12:00:00Z', 'resolved'], // no alertname; ack 600
  ['a6', 'Latency', 'warning', '2026-03-03T11:59:59Z', 'firing'], // ack 1000
  ['a7', 'Latency', 'high', '2026-02-20T00:00:00Z', 'resolved'], // never acknowledged
  ['a8', 'Old', 'critical', '2026-01-01T00:00:00Z', 'firing'], // ack 45
  ['a9', 'Ancient', 'info', '2025-12-01T00:00:00Z', 'firing'], // older than every window
  // Fired again on 03-08; the acknowledgement kept from its first firing predates it: ack 0.
  ['a10', 'DiskFull', 'high', '2026-03-08T00:00:00Z', 'resolved'],
];

export const ACKS: Array<[key: string, channel: string, at: string, who: Who]> = [
  ['a1', 'in_app', '2026-03-10T10:01:00Z', 'owner'],
  ['a2', 'in_app', '2026-03-09T23:35:00Z', 'owner'],
  ['a2', 'email', '2026-03-09T23:32:00Z', 'dev'],
  ['a3', 'phone', '2026-03-09T08:00:30Z', 'NOC'],
  ['a5', 'in_app', '2026-03-03T12:10:00Z', 'dev'],
  ['a6', 'email', '2026-03-03T12:16:39Z', 'owner'],
  ['a8', 'in_app', '2026-01-01T00:00:45Z', 'owner'],
  ['a9', 'in_app', '2025-12-01T00:00:05Z', 'owner'],
  ['a10', 'in_app', '2026-03-01T00:05:00Z', 'owner'],
];

/** Timeline events: only fired and refired count for top_noisy, the other kinds are noise. */
export const EVENTS: Array<[key: string, kind: string, at: string]> = [
  ['a1', 'fired', '2026-03-10T10:00:00Z'],
  ['a1', 'notified', '2026-03-10T10:00:01Z'],
  ['a1', 'acknowledged', '2026-03-10T10:01:00Z'],
  ['a2', 'fired', '2026-03-09T23:30:00Z'],
  ['a2', 'resolved', '2026-03-09T23:40:00Z'],
  ['a2', 'refired', '2026-03-10T01:00:00Z'],
  ['a3', 'fired', '2026-03-09T08:00:00Z'],
  ['a3', 'refired', '2026-03-09T09:00:00Z'],
  ['a3', 'refired', '2026-03-09T10:00:00Z'],
  ['a3', 'resolved', '2026-03-09T11:00:00Z'],
  ['a4', 'fired', '2026-03-05T00:00:00Z'],
  ['a4', 'paged', '2026-03-05T00:00:10Z'],
  ['a5', 'fired', '2026-03-03T12:00:00Z'],
  ['a6', 'fired', '2026-03-03T11:59:59Z'],
  ['a7', 'fired', '2026-02-20T00:00:00Z'],
  ['a8', 'fired', '2026-01-01T00:00:00Z'],
  ['a9', 'fired', '2025-12-01T00:00:00Z'],
  ['a10', 'fired', '2026-03-01T00:00:00Z'],
  ['a10', 'refired', '2026-03-08T00:00:00Z'],
];

/** Escalation instances, by when they opened. a2 ran out of steps, then was acknowledged. */
export const INSTANCES: Array<
  [key: string, state: string, openedAt: string, exhaustedAt: string | null, repeats: number]
> = [
  ['a1', 'active', '2026-03-10T10:00:05Z', null, 0],
  ['a2', 'acknowledged', '2026-03-09T23:30:05Z', '2026-03-10T00:00:00Z', 1],
  ['a3', 'exhausted', '2026-03-09T08:00:05Z', '2026-03-09T08:30:00Z', 2],
  ['a4', 'resolved', '2026-03-05T00:00:05Z', null, 0],
  ['a5', 'resolved', '2026-03-03T12:00:00Z', null, 0],
  ['a6', 'exhausted', '2026-03-03T11:59:59Z', '2026-03-03T12:30:00Z', 1],
  ['a8', 'acknowledged', '2026-01-01T00:00:05Z', null, 0],
  ['a9', 'exhausted', '2025-12-01T00:00:05Z', '2025-12-01T01:00:00Z', 3],
];

export const LEDGER: Array<[who: Who, action: string, channel: string, at: string]> = [
  ['owner', 'notified', 'in_app', '2026-03-10T10:00:06Z'],
  ['owner', 'notified', 'email', '2026-03-10T10:00:06Z'],
  ['owner', 'called', 'phone', '2026-03-10T10:05:06Z'],
  ['owner', 'acked', 'in_app', '2026-03-10T10:01:00Z'],
  ['owner', 'notified', 'email', '2026-02-20T00:00:10Z'],
  ['owner', 'notified', 'email', '2026-02-20T00:00:11Z'],
  ['owner', 'notified', 'in_app', '2026-01-01T00:00:10Z'],
  ['owner', 'acked', 'email', '2026-01-01T00:00:45Z'],
  ['owner', 'notified', 'in_app', '2025-12-01T00:00:10Z'],
  ['dev', 'notified', 'in_app', '2026-03-09T23:30:06Z'],
  ['dev', 'notified', 'email', '2026-03-09T23:30:06Z'],
  ['dev', 'called', 'phone', '2026-03-09T08:05:00Z'],
  ['dev', 'acked', 'email', '2026-03-09T23:32:00Z'],
  ['dev', 'acked', 'sms', '2026-03-09T08:00:35Z'], // an SMS reply: a phone acknowledgement
  ['ghost', 'notified', 'email', '2026-03-05T00:00:10Z'],
  ['ghost', 'notified', 'in_app', '2026-03-05T00:00:10Z'],
  ['ghost', 'called', 'phone', '2026-03-05T00:05:00Z'],
  ['ghost', 'acked', 'phone', '2026-02-20T00:10:00Z'],
  ['NOC', 'called', 'phone', '2026-03-09T08:10:00Z'],
  ['NOC', 'acked', 'phone', '2026-03-09T08:11:00Z'],
];
