import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { LATEST_FIRE, NO_EVENT } from './alert-dispatch.repository.js';

/** A fired, refired or resolved timeline event whose dispatch nobody has claimed. */
export interface OwedEvent {
  event_id: string;
  alert_id: string;
  project_id: string;
  kind: 'fired' | 'refired' | 'resolved';
  event_at: Date;
}

/** Where the sweep has read the timeline up to: the last event it took on. */
export interface SweepMark {
  at: Date;
  eventId: string;
}

/**
 * Joins to each transition event `x` (event_id, alert_id, kind, event_at) `owing.owed`, true
 * while the event is still owed and null otherwise:
 *
 * - a firing (`fired`, `refired`) while it is the alert's current episode, the alert still
 *   fires, and no dispatch claimed the episode;
 * - a resolution while the alert is still resolved, the event came after the current episode
 *   began, a dispatch claimed that episode and nobody claimed its resolution. A firing nobody
 *   claimed notified nobody, so its resolution is owed nothing.
 *
 * Almost every event was dispatched: one probe of the claim index (`claim`: a claim of this
 * firing, or a claim of the alert awaiting its resolution) settles those, and only the rest
 * get the full check, which reads the alert and its current episode. Both are LIMITed lateral
 * subqueries, so each runs per event on its index (as EXISTS they would be planned as hashes
 * of the whole claim table), and the full check's gate on `claim` skips it outright.
 */
const OWING = `
  LEFT JOIN LATERAL (
    SELECT true AS found FROM alert_dispatch c
     WHERE c.alert_id = x.alert_id
       AND CASE WHEN x.kind = 'resolved' THEN c.resolved_at IS NULL
                ELSE COALESCE(c.fired_event_id, '${NO_EVENT}'::uuid) = x.event_id END
     LIMIT 1
  ) claim ON true
  LEFT JOIN LATERAL (
    SELECT true AS owed
      FROM alert a ${LATEST_FIRE}
      LEFT JOIN alert_dispatch d
        ON d.alert_id = a.id
       AND COALESCE(d.fired_event_id, '${NO_EVENT}'::uuid) = COALESCE(f.id, '${NO_EVENT}'::uuid)
     WHERE CASE WHEN x.kind = 'resolved' THEN claim.found ELSE claim.found IS NULL END
       AND a.id = x.alert_id
       AND CASE WHEN x.kind = 'resolved'
                THEN a.status = 'resolved' AND d.alert_id IS NOT NULL AND d.resolved_at IS NULL
                     AND (f.created_at IS NULL OR f.created_at <= x.event_at)
                ELSE a.status = 'firing' AND f.id = x.event_id AND d.alert_id IS NULL
           END
     LIMIT 1
  ) owing ON true`;

/**
 * Reads one page of transition events after the mark, no later than `$3`, records those still
 * owed and moves the mark to the page's last event, in one statement: the mark never passes
 * an owed event that is not recorded. The mark only moves forward, so sweeps of several
 * workers at once leave it where the furthest one got.
 */
const SCAN_SQL = `
WITH page AS (
  SELECT e.id AS event_id, e.alert_id, e.project_id, e.kind, e.created_at AS event_at
    FROM alert_event e
   WHERE e.kind IN ('fired', 'refired', 'resolved')
     AND (e.created_at, e.id) > ($1::timestamptz, $2::uuid)
     AND e.created_at <= $3
   ORDER BY e.created_at, e.id
   LIMIT $4
),
recorded AS (
  INSERT INTO alert_dispatch_owed (event_id, alert_id, project_id, kind, event_at, next_attempt_at)
  SELECT x.event_id, x.alert_id, x.project_id, x.kind, x.event_at, $5
    FROM page x ${OWING}
   WHERE owing.owed
  ON CONFLICT (event_id) DO NOTHING
  RETURNING event_id
),
last AS (
  SELECT event_at, event_id FROM page ORDER BY event_at DESC, event_id DESC LIMIT 1
),
moved AS (
  UPDATE alert_dispatch_sweep s SET swept_at = l.event_at, swept_event_id = l.event_id
    FROM last l
   WHERE s.swept_at IS NULL OR (s.swept_at, s.swept_event_id) < (l.event_at, l.event_id)
)
SELECT (SELECT count(*) FROM page)::int AS scanned,
       (SELECT count(*) FROM recorded)::int AS recorded,
       l.event_at, l.event_id
  FROM (SELECT 1) one LEFT JOIN last l ON true`;

/**
 * Takes the recorded events due for another attempt, checks each again, and deletes those no
 * longer owed and those owed since before `$3` (given up); answers every event it checked.
 */
const DUE_SQL = `
WITH due AS (
  SELECT o.event_id, o.alert_id, o.project_id, o.kind, o.event_at
    FROM alert_dispatch_owed o
   WHERE o.next_attempt_at <= $1
   ORDER BY o.next_attempt_at, o.event_at, o.event_id
   LIMIT $2
),
checked AS (
  SELECT x.*, owing.owed IS NOT NULL AS owed FROM due x ${OWING}
),
dropped AS (
  DELETE FROM alert_dispatch_owed o USING checked c
   WHERE o.event_id = c.event_id AND (NOT c.owed OR c.event_at < $3)
)
SELECT event_id, alert_id, project_id, kind, event_at, owed
  FROM checked ORDER BY event_at, event_id`;

/**
 * What the dispatch sweep reads and writes: the timeline, its mark, the owed events. Its two
 * page statements run without JIT: a page is thousands of index probes that take tens of
 * milliseconds, costed high enough that compiling them would add as much again.
 */
@Injectable()
export class AlertDispatchSweepRepository {
  constructor(private readonly dataSource: DataSource) {}

  private withoutJit<T>(sql: string, params: unknown[]): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT set_config('jit', 'off', true)`);
      return manager.query<T>(sql, params);
    });
  }

  /** The last event the sweep took on; null before the first sweep. */
  async mark(): Promise<SweepMark | null> {
    const [row]: Array<{ swept_at: Date | null; swept_event_id: string | null }> =
      await this.dataSource.query('SELECT swept_at, swept_event_id FROM alert_dispatch_sweep');
    return row?.swept_at ? { at: row.swept_at, eventId: row.swept_event_id! } : null;
  }

  /**
   * Takes on up to `limit` transition events after `after` and no later than `upTo`, in
   * timeline order: records the owed ones (due at `now`) and moves the mark past the page.
   * Answers how many were read and recorded, and the page's last event (null: none).
   */
  async scan(
    after: SweepMark,
    upTo: Date,
    limit: number,
    now: Date,
  ): Promise<{ scanned: number; recorded: number; last: SweepMark | null }> {
    const [row]: Array<{
      scanned: number;
      recorded: number;
      event_at: Date | null;
      event_id: string | null;
    }> = await this.withoutJit(SCAN_SQL, [after.at, after.eventId, upTo, limit, now]);
    return {
      scanned: row.scanned,
      recorded: row.recorded,
      last: row.event_at ? { at: row.event_at, eventId: row.event_id! } : null,
    };
  }

  /**
   * Up to `limit` recorded events due by `now`, each checked again: those no longer owed are
   * deleted, as are those that happened before `giveUpBefore` (still owed: given up). Answers
   * every event checked, in timeline order, with whether it is still owed.
   */
  due(now: Date, limit: number, giveUpBefore: Date): Promise<Array<OwedEvent & { owed: boolean }>> {
    return this.withoutJit(DUE_SQL, [now, limit, giveUpBefore]);
  }

  /** The events were enqueued: the next attempt is at `at`, unless a dispatch claims them. */
  async deferred(eventIds: readonly string[], at: Date): Promise<void> {
    if (eventIds.length === 0) return;
    await this.dataSource.query(
      'UPDATE alert_dispatch_owed SET next_attempt_at = $2 WHERE event_id = ANY ($1::uuid[])',
      [eventIds, at],
    );
  }
}
