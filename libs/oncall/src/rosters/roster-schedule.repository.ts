import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { RotationRow } from './rosters.repository.js';
import type { ShiftLength } from './rotation-schedule.js';

const ROSTER = 'SELECT id FROM on_call_roster WHERE project_id = $1 AND id = $2';
const ROTATION_COLUMNS = `roster_id, time_zone, to_char(start_date, 'YYYY-MM-DD') AS start_date,
       handoff_time, shift_length, shift_hours, created_at, updated_at`;
const OVERRIDE_COLUMNS = `o.id, o.roster_id, o.account_id, a.name, o.starts_at, o.ends_at,
       o.created_at`;

export interface OverrideRow {
  id: string;
  roster_id: string;
  account_id: string;
  name: string;
  starts_at: Date;
  ends_at: Date;
  created_at: Date;
}

export interface RotationFields {
  timeZone: string;
  startDate: string;
  handoffTime: string;
  shiftLength: ShiftLength;
  shiftHours: number | null;
}

type Db = DataSource | EntityManager;

/** A roster's rotation and overrides, and the schedule inputs the shifts view reads. */
@Injectable()
export class RosterScheduleRepository {
  constructor(private readonly dataSource: DataSource) {}

  async rotation(
    projectId: string,
    rosterId: string,
    db: Db = this.dataSource,
  ): Promise<RotationRow | null> {
    const rows: RotationRow[] = await db.query(
      `SELECT ${ROTATION_COLUMNS} FROM on_call_rotation WHERE roster_id IN (${ROSTER})`,
      [projectId, rosterId],
    );
    return rows[0] ?? null;
  }

  /** Creates or replaces the rotation; a replaced rotation keeps its created_at. */
  async putRotation(
    db: EntityManager,
    projectId: string,
    rosterId: string,
    fields: RotationFields,
    at: Date,
  ): Promise<RotationRow> {
    const rows: RotationRow[] = await db.query(
      `INSERT INTO on_call_rotation
         (roster_id, time_zone, start_date, handoff_time, shift_length, shift_hours, created_at, updated_at)
       SELECT id, $3, $4::date, $5, $6, $7, $8, $8 FROM on_call_roster WHERE project_id = $1 AND id = $2
       ON CONFLICT (roster_id) DO UPDATE
          SET time_zone = EXCLUDED.time_zone, start_date = EXCLUDED.start_date,
              handoff_time = EXCLUDED.handoff_time, shift_length = EXCLUDED.shift_length,
              shift_hours = EXCLUDED.shift_hours, updated_at = EXCLUDED.updated_at
       RETURNING ${ROTATION_COLUMNS}`,
      [
        projectId,
        rosterId,
        fields.timeZone,
        fields.startDate,
        fields.handoffTime,
        fields.shiftLength,
        fields.shiftHours,
        at,
      ],
    );
    return rows[0];
  }

  async deleteRotation(projectId: string, rosterId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `WITH deleted AS (
         DELETE FROM on_call_rotation WHERE roster_id IN (${ROSTER}) RETURNING roster_id)
       SELECT roster_id FROM deleted`,
      [projectId, rosterId],
    );
    return rows.length > 0;
  }

  /** Overrides of the roster, by starts_at; with a window, those overlapping it. */
  overrides(
    projectId: string,
    rosterId: string,
    window: { from: Date | null; to: Date | null },
  ): Promise<OverrideRow[]> {
    return this.dataSource.query(
      `SELECT ${OVERRIDE_COLUMNS}
         FROM on_call_override o JOIN account a ON a.id = o.account_id
        WHERE o.roster_id IN (${ROSTER})
          AND ($3::timestamptz IS NULL OR o.ends_at > $3)
          AND ($4::timestamptz IS NULL OR o.starts_at < $4)
        ORDER BY o.starts_at, o.created_at, o.id`,
      [projectId, rosterId, window.from, window.to],
    );
  }

  async override(
    projectId: string,
    rosterId: string,
    overrideId: string,
    db: Db = this.dataSource,
  ): Promise<OverrideRow | null> {
    const rows: OverrideRow[] = await db.query(
      `SELECT ${OVERRIDE_COLUMNS}
         FROM on_call_override o JOIN account a ON a.id = o.account_id
        WHERE o.roster_id IN (${ROSTER}) AND o.id = $3`,
      [projectId, rosterId, overrideId],
    );
    return rows[0] ?? null;
  }

  async insertOverride(
    db: EntityManager,
    projectId: string,
    rosterId: string,
    fields: { accountId: string; startsAt: Date; endsAt: Date },
    at: Date,
  ): Promise<string> {
    const rows: Array<{ id: string }> = await db.query(
      `INSERT INTO on_call_override (roster_id, account_id, starts_at, ends_at, created_at, updated_at)
       SELECT id, $3, $4, $5, $6, $6 FROM on_call_roster WHERE project_id = $1 AND id = $2
       RETURNING id`,
      [projectId, rosterId, fields.accountId, fields.startsAt, fields.endsAt, at],
    );
    return rows[0].id;
  }

  async deleteOverride(projectId: string, rosterId: string, overrideId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `WITH deleted AS (
         DELETE FROM on_call_override WHERE roster_id IN (${ROSTER}) AND id = $3 RETURNING id)
       SELECT id FROM deleted`,
      [projectId, rosterId, overrideId],
    );
    return rows.length > 0;
  }

  /**
   * What the shifts of [from, to) are computed from: the rotation, the members that may be
   * paged (holding a membership in the project's organization) in rotation order, and the
   * overrides overlapping the window held by such accounts. Names of every account involved.
   */
  async shiftInputs(projectId: string, rosterId: string, from: Date, to: Date) {
    const member = `EXISTS (SELECT 1 FROM project p JOIN membership ms
                              ON ms.organization_id = p.organization_id
                             WHERE p.id = $1 AND ms.account_id = a.id)`;
    const [rotation, members, overrides] = await Promise.all([
      this.rotation(projectId, rosterId),
      this.dataSource.query<Array<{ account_id: string; name: string }>>(
        `SELECT m.account_id, a.name
           FROM on_call_roster_member m JOIN account a ON a.id = m.account_id
          WHERE m.roster_id IN (${ROSTER}) AND ${member}
          ORDER BY m.position`,
        [projectId, rosterId],
      ),
      this.dataSource.query<OverrideRow[]>(
        `SELECT ${OVERRIDE_COLUMNS}
           FROM on_call_override o JOIN account a ON a.id = o.account_id
          WHERE o.roster_id IN (${ROSTER}) AND o.ends_at > $3 AND o.starts_at < $4 AND ${member}`,
        [projectId, rosterId, from, to],
      ),
    ]);
    return { rotation, members, overrides };
  }
}
