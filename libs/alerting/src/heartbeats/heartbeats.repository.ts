import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export const HEARTBEAT_STATUSES = ['pending', 'up', 'down'] as const;
export type HeartbeatStatus = (typeof HEARTBEAT_STATUSES)[number];

export interface HeartbeatRow {
  id: string;
  project_id: string;
  name: string;
  interval_seconds: number;
  grace_seconds: number;
  labels: Record<string, string>;
  ping_nonce: string;
  status: HeartbeatStatus;
  last_ping_at: Date | null;
  due_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface HeartbeatFields {
  name: string;
  intervalSeconds: number;
  graceSeconds: number;
  labels: Record<string, string>;
}

const COLUMNS = `h.id, h.project_id, h.name, h.interval_seconds, h.grace_seconds, h.labels,
  h.ping_nonce, h.status, h.last_ping_at, h.due_at, h.created_at, h.updated_at`;

/** Heartbeat monitors (`heartbeat`). */
@Injectable()
export class HeartbeatsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  list(projectId: string): Promise<HeartbeatRow[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM heartbeat h WHERE h.project_id = $1 ORDER BY h.created_at, h.id`,
      [projectId],
    );
  }

  /** One heartbeat of the project; with `manager`, locked for the rest of its transaction. */
  async find(projectId: string, id: string, manager?: EntityManager): Promise<HeartbeatRow | null> {
    const rows = await (manager ?? this.dataSource).query<HeartbeatRow[]>(
      `SELECT ${COLUMNS} FROM heartbeat h WHERE h.project_id = $1 AND h.id = $2
       ${manager ? 'FOR UPDATE' : ''}`,
      [projectId, id],
    );
    return rows[0] ?? null;
  }

  /** A heartbeat by id alone, for its ping URL (which names no project). */
  async findById(id: string): Promise<HeartbeatRow | null> {
    const rows = await this.dataSource.query<HeartbeatRow[]>(
      `SELECT ${COLUMNS} FROM heartbeat h WHERE h.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async create(projectId: string, fields: HeartbeatFields, nonce: string, at: Date) {
    const rows = await this.dataSource.query<HeartbeatRow[]>(
      `INSERT INTO heartbeat AS h (project_id, name, interval_seconds, grace_seconds, labels,
                                   ping_nonce, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $7)
       RETURNING ${COLUMNS}`,
      [
        projectId,
        fields.name,
        fields.intervalSeconds,
        fields.graceSeconds,
        JSON.stringify(fields.labels),
        nonce,
        at,
      ],
    );
    return rows[0];
  }

  /** Replaces the fields; a heartbeat that was pinged gets the deadline of its new interval. */
  async update(
    manager: EntityManager,
    id: string,
    fields: HeartbeatFields,
    at: Date,
  ): Promise<HeartbeatRow> {
    const [rows] = await manager.query<[HeartbeatRow[], number]>(
      `UPDATE heartbeat h SET name = $2, interval_seconds = $3, grace_seconds = $4,
              labels = $5::jsonb, updated_at = $6,
              due_at = h.last_ping_at + make_interval(secs => $3::int + $4::int)
        WHERE h.id = $1
       RETURNING ${COLUMNS}`,
      [
        id,
        fields.name,
        fields.intervalSeconds,
        fields.graceSeconds,
        JSON.stringify(fields.labels),
        at,
      ],
    );
    return rows[0];
  }

  async rotate(projectId: string, id: string, nonce: string, at: Date) {
    const [rows] = await this.dataSource.query<[HeartbeatRow[], number]>(
      `UPDATE heartbeat h SET ping_nonce = $3, updated_at = $4
        WHERE h.project_id = $1 AND h.id = $2
       RETURNING ${COLUMNS}`,
      [projectId, id, nonce, at],
    );
    return rows[0] ?? null;
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.query('DELETE FROM heartbeat WHERE id = $1', [id]);
  }

  /**
   * Records a ping of the heartbeat whose current nonce is `nonce` (none after a rotation):
   * it is up until interval plus grace from now. Answers the heartbeat and its status before.
   */
  async recordPing(
    manager: EntityManager,
    id: string,
    nonce: string,
    at: Date,
  ): Promise<{ heartbeat: HeartbeatRow; previous: HeartbeatStatus } | null> {
    const [rows] = await manager.query<
      [Array<HeartbeatRow & { previous: HeartbeatStatus }>, number]
    >(
      `WITH old AS (
         SELECT id, status FROM heartbeat WHERE id = $1 AND ping_nonce = $2 FOR UPDATE
       )
       UPDATE heartbeat h SET status = 'up', last_ping_at = $3,
              due_at = $3::timestamptz + make_interval(secs => h.interval_seconds + h.grace_seconds)
         FROM old WHERE h.id = old.id
       RETURNING ${COLUMNS}, old.status AS previous`,
      [id, nonce, at],
    );
    if (!rows[0]) return null;
    const { previous, ...heartbeat } = rows[0];
    return { heartbeat, previous };
  }

  /**
   * Turns up to `limit` heartbeats whose deadline passed by `now` down, the most overdue
   * first; rows another sweep holds are skipped. Answers them as they are now.
   */
  async markOverdueDown(manager: EntityManager, now: Date, limit: number): Promise<HeartbeatRow[]> {
    const [rows] = await manager.query<[HeartbeatRow[], number]>(
      `WITH due AS (
         SELECT id FROM heartbeat
          WHERE status = 'up' AND due_at <= $1
          ORDER BY due_at LIMIT $2
            FOR UPDATE SKIP LOCKED
       )
       UPDATE heartbeat h SET status = 'down' FROM due WHERE h.id = due.id
       RETURNING ${COLUMNS}`,
      [now, limit],
    );
    return rows;
  }
}
