import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/** Kinds of timeline events. Values are stored: never rename one, only add. */
export enum AlertEventKind {
  Fired = 'fired',
  Refired = 'refired',
  Notified = 'notified',
  Resolved = 'resolved',
  Suppressed = 'suppressed',
  Silenced = 'silenced',
  Acknowledged = 'acknowledged',
  Unacknowledged = 'unacknowledged',
  EscalationOpened = 'escalation_opened',
  Paged = 'paged',
  EscalationExhausted = 'escalation_exhausted',
  ReEscalated = 're_escalated',
}

export interface NewAlertEvent {
  alertId: string;
  projectId: string;
  kind: AlertEventKind;
  details?: Record<string, unknown>;
  at: Date;
}

/**
 * The statement that records the events `rows` selects (alert_id, project_id, kind, details,
 * created_at, in that order). Exported for statements that write events with rows of their
 * own in one round trip (a data-modifying CTE of escalation's batched statements); the
 * timeline's SQL stays here.
 */
export function insertAlertEvents(rows: string): string {
  return `INSERT INTO alert_event (alert_id, project_id, kind, details, created_at)\n${rows}`;
}

/** The alert timeline: written as things happen, many events in one statement. */
@Injectable()
export class AlertEventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async record(events: readonly NewAlertEvent[], manager?: EntityManager): Promise<void> {
    if (events.length === 0) return;
    await (manager ?? this.dataSource).query(
      insertAlertEvents(
        'SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::jsonb[], $5::timestamptz[])',
      ),
      [
        events.map((e) => e.alertId),
        events.map((e) => e.projectId),
        events.map((e) => e.kind),
        events.map((e) => JSON.stringify(e.details ?? {})),
        events.map((e) => e.at),
      ],
    );
  }
}
