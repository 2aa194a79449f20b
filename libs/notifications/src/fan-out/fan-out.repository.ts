import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { FEATURE_AVAILABLE } from './feature-availability.js';

/** What a fan-out announces: an incident opened or resolved, or a broadcast published. */
export type FanOutKind = 'incident_opened' | 'incident_resolved' | 'broadcast';

/**
 * Shards per fan-out: they run side by side (on every worker), each over its slice of the
 * account ids. Random (v4) ids spread evenly over the slices.
 */
export const FAN_OUT_SHARDS = 8;
/** Accounts notified per page: one notifyEach-style batch. */
export const FAN_OUT_PAGE_SIZE = 2000;

export interface FanOutShard {
  id: string;
  kind: FanOutKind;
  subjectId: string;
  rangeStart: string;
  rangeEnd: string | null;
  cursor: string | null;
  doneAt: Date | null;
}

/** The first id of each of `count` equal slices of the uuid space. */
export function shardStarts(count: number): string[] {
  return Array.from({ length: count }, (_, n) => {
    const hex = Math.floor((n * 0x1_0000_0000) / count)
      .toString(16)
      .padStart(8, '0');
    return `${hex}-0000-0000-0000-000000000000`;
  });
}

const SHARD_COLUMNS = `id, kind, subject_id AS "subjectId", range_start AS "rangeStart",
  range_end AS "rangeEnd", cursor, done_at AS "doneAt"`;

/**
 * Who is affected: with features, the members of the organizations having a project where one
 * of them is Available (a Grant whose kinds, within the organization's Limit, are not empty);
 * without, every account.
 */
const AUDIENCE_BY_FEATURES = `
  SELECT DISTINCT m.account_id AS id FROM membership m
   WHERE m.organization_id IN (
           SELECT p.organization_id FROM project p
             JOIN feature_grant g ON g.project_id = p.id
             LEFT JOIN feature_limit l
               ON l.organization_id = p.organization_id AND l.feature_key = g.feature_key
            WHERE g.feature_key = ANY($4::text[])
              AND ${FEATURE_AVAILABLE})
     AND m.account_id >= $1 AND ($2::uuid IS NULL OR m.account_id < $2)
     AND ($3::uuid IS NULL OR m.account_id > $3)
   ORDER BY m.account_id LIMIT $5`;

const AUDIENCE_ALL = `
  SELECT a.id FROM account a
   WHERE a.id >= $1 AND ($2::uuid IS NULL OR a.id < $2) AND ($3::uuid IS NULL OR a.id > $3)
   ORDER BY a.id LIMIT $4`;

@Injectable()
export class FanOutRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The shards of a new fan-out, in the caller's transaction; an existing one is kept. */
  async create(
    manager: EntityManager,
    kind: FanOutKind,
    subjectId: string,
    now: Date,
  ): Promise<string[]> {
    const starts = shardStarts(FAN_OUT_SHARDS);
    const rows: Array<{ id: string }> = await manager.query(
      `INSERT INTO notification_fanout (kind, subject_id, shard, range_start, range_end, created_at)
       SELECT $1, $2, n - 1, s::uuid, e::uuid, $5
         FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS t(s, e, n)
       ON CONFLICT (kind, subject_id, shard) DO NOTHING
       RETURNING id`,
      [kind, subjectId, starts, [...starts.slice(1), null], now],
    );
    return rows.map((r) => r.id);
  }

  async shard(id: string): Promise<FanOutShard | null> {
    const [row]: FanOutShard[] = await this.dataSource.query(
      `SELECT ${SHARD_COLUMNS} FROM notification_fanout WHERE id = $1`,
      [id],
    );
    return row ?? null;
  }

  /** Every shard not finished yet, oldest fan-out first. */
  unfinished(): Promise<FanOutShard[]> {
    return this.dataSource.query(
      `SELECT ${SHARD_COLUMNS} FROM notification_fanout WHERE done_at IS NULL
        ORDER BY created_at, shard`,
    );
  }

  /** The shard's next page of accounts after `after`, in id order. */
  async page(
    shard: FanOutShard,
    after: string | null,
    features: readonly string[] | null,
    limit: number,
  ): Promise<string[]> {
    const rows: Array<{ id: string }> = features
      ? await this.dataSource.query(AUDIENCE_BY_FEATURES, [
          shard.rangeStart,
          shard.rangeEnd,
          after,
          features,
          limit,
        ])
      : await this.dataSource.query(AUDIENCE_ALL, [shard.rangeStart, shard.rangeEnd, after, limit]);
    return rows.map((r) => r.id);
  }

  /** Moves the cursor from `from` to `to`; false when it was elsewhere (another run moved it). */
  async advance(id: string, from: string | null, to: string): Promise<boolean> {
    // pg answers an UPDATE as [rows, affected count].
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      `UPDATE notification_fanout SET cursor = $3
        WHERE id = $1 AND cursor IS NOT DISTINCT FROM $2::uuid AND done_at IS NULL`,
      [id, from, to],
    );
    return affected > 0;
  }

  async finish(id: string, now: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE notification_fanout SET done_at = $2 WHERE id = $1 AND done_at IS NULL`,
      [id, now],
    );
  }
}
