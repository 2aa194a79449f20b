import { isSeverity, type Severity } from '../severity.js';
import type { HeartbeatRow } from './heartbeats.repository.js';

/** The severity of a heartbeat's alert whose labels name no valid one. */
export const DEFAULT_HEARTBEAT_SEVERITY: Severity = 'critical';

/** The alert of a heartbeat has this fingerprint, the same in every firing. */
export function heartbeatFingerprint(heartbeatId: string): string {
  return `heartbeat-${heartbeatId}`;
}

/**
 * The alert a missed heartbeat raises (or, `resolved`, ends), as an Alertmanager alert for
 * ingest: the heartbeat's labels, with `alertname` its name and `severity` its severity label
 * when that is one of the four, else critical. A firing one starts when the ping became
 * overdue; a resolved one ends at `at`, the ping that ended it.
 */
export function heartbeatAlert(
  heartbeat: Pick<
    HeartbeatRow,
    'id' | 'name' | 'labels' | 'interval_seconds' | 'grace_seconds' | 'due_at'
  >,
  status: 'firing' | 'resolved',
  at: Date,
): Record<string, unknown> {
  const severity = isSeverity(heartbeat.labels.severity)
    ? heartbeat.labels.severity
    : DEFAULT_HEARTBEAT_SEVERITY;
  const silence = heartbeat.interval_seconds + heartbeat.grace_seconds;
  return {
    fingerprint: heartbeatFingerprint(heartbeat.id),
    status,
    labels: { ...heartbeat.labels, alertname: heartbeat.name, severity },
    annotations: {
      summary: `Heartbeat "${heartbeat.name}" missed: no ping for ${silence} seconds`,
    },
    startsAt: (heartbeat.due_at ?? at).toISOString(),
    ...(status === 'resolved' ? { endsAt: at.toISOString() } : {}),
  };
}
