import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export type TestAlertOutcome = 'resolved' | 'already_resolved';

/** A test alert not yet auto-resolved, with what resolving its alert takes. */
export interface UnsettledTestAlert {
  alert_id: string;
  project_id: string;
  resolve_at: Date;
  fingerprint: string;
  status: 'firing' | 'resolved';
  /** Whether the alert's current firing episode is the one the test alert started. */
  same_episode: boolean;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  generator_url: string;
}

/** The auto-resolution schedule of test alerts (`test_alert`). */
@Injectable()
export class TestAlertsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Schedules the resolution of the alert's current firing episode `afterSeconds` after it
   * began; answers when that is.
   */
  async schedule(manager: EntityManager, alertId: string, afterSeconds: number): Promise<Date> {
    const [row]: Array<{ resolve_at: Date }> = await manager.query(
      `INSERT INTO test_alert (alert_id, project_id, starts_at, resolve_at)
       SELECT id, project_id, starts_at, starts_at + make_interval(secs => $2) FROM alert
        WHERE id = $1
       RETURNING resolve_at`,
      [alertId, afterSeconds],
    );
    return row.resolve_at;
  }

  /**
   * The test alert `alertId` unless settled, with its alert, both locked for the transaction:
   * an ingest of the same fingerprint waits for it, and so does another job of it.
   */
  async lockUnsettled(manager: EntityManager, alertId: string): Promise<UnsettledTestAlert | null> {
    const rows: UnsettledTestAlert[] = await manager.query(
      `SELECT t.alert_id, t.project_id, t.resolve_at, a.fingerprint, a.status,
              a.starts_at = t.starts_at AS same_episode, a.labels, a.annotations, a.generator_url
         FROM test_alert t JOIN alert a ON a.id = t.alert_id
        WHERE t.alert_id = $1 AND t.settled_at IS NULL
          FOR UPDATE OF t, a`,
      [alertId],
    );
    return rows[0] ?? null;
  }

  async settle(
    manager: EntityManager,
    alertId: string,
    at: Date,
    outcome: TestAlertOutcome,
  ): Promise<void> {
    await manager.query('UPDATE test_alert SET settled_at = $2, outcome = $3 WHERE alert_id = $1', [
      alertId,
      at,
      outcome,
    ]);
  }

  /** Unsettled test alerts due by `now`, the longest overdue first. */
  async due(now: Date, limit: number): Promise<Array<{ alert_id: string; resolve_at: Date }>> {
    return this.dataSource.query(
      `SELECT alert_id, resolve_at FROM test_alert
        WHERE settled_at IS NULL AND resolve_at <= $1
        ORDER BY resolve_at LIMIT $2`,
      [now, limit],
    );
  }
}
