import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { ShiftLength } from './rotation-schedule.js';

export interface RosterRow {
  id: string;
  project_id: string;
  name: string;
  description: string;
  created_at: Date;
  updated_at: Date;
}

export interface MemberRow {
  id: string;
  roster_id: string;
  account_id: string;
  name: string;
  position: number;
}

export interface PhoneContactRow {
  id: string;
  roster_id: string;
  label: string;
  phone_number: string;
  created_at: Date;
  updated_at: Date;
}

export interface RotationRow {
  roster_id: string;
  time_zone: string;
  /** YYYY-MM-DD, read as text so no time zone shifts it. */
  start_date: string;
  handoff_time: string;
  shift_length: ShiftLength;
  shift_hours: number | null;
  created_at: Date;
  updated_at: Date;
}

type Db = DataSource | EntityManager;

const ROTATION_COLUMNS = `rot.roster_id, rot.time_zone, to_char(rot.start_date, 'YYYY-MM-DD') AS start_date,
       rot.handoff_time, rot.shift_length, rot.shift_hours, rot.created_at, rot.updated_at`;

/**
 * Rosters of a project and what a roster view shows (members, phone contacts, rotation). Every
 * statement names the project: a roster id of another project reads as absent.
 */
@Injectable()
export class RostersRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** For reads outside a transaction through repositories that take a manager. */
  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  list(projectId: string): Promise<RosterRow[]> {
    return this.dataSource.query(
      `SELECT id, project_id, name, description, created_at, updated_at
         FROM on_call_roster WHERE project_id = $1 ORDER BY name, id`,
      [projectId],
    );
  }

  async find(projectId: string, id: string, db: Db = this.dataSource): Promise<RosterRow | null> {
    const rows: RosterRow[] = await db.query(
      `SELECT id, project_id, name, description, created_at, updated_at
         FROM on_call_roster WHERE project_id = $1 AND id = $2`,
      [projectId, id],
    );
    return rows[0] ?? null;
  }

  /**
   * Locks the roster for the rest of the transaction: every change to its members, contacts,
   * rotation or overrides takes this lock first, so positions stay dense and labels unique
   * under concurrent requests. False when the roster is not the project's.
   */
  async lock(manager: EntityManager, projectId: string, id: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      'SELECT 1 FROM on_call_roster WHERE project_id = $1 AND id = $2 FOR UPDATE',
      [projectId, id],
    );
    return rows.length > 0;
  }

  async insert(
    projectId: string,
    fields: { name: string; description: string },
    at: Date,
  ): Promise<string> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `INSERT INTO on_call_roster (project_id, name, description, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $4) RETURNING id`,
      [projectId, fields.name, fields.description, at],
    );
    return rows[0].id;
  }

  async update(
    projectId: string,
    id: string,
    fields: { name?: string; description?: string },
    at: Date,
  ): Promise<boolean> {
    // A CTE, because TypeORM hands back UPDATE ... RETURNING as [rows, count].
    const rows: unknown[] = await this.dataSource.query(
      `WITH updated AS (
         UPDATE on_call_roster
            SET name = COALESCE($3, name), description = COALESCE($4, description), updated_at = $5
          WHERE project_id = $1 AND id = $2
          RETURNING id)
       SELECT id FROM updated`,
      [projectId, id, fields.name ?? null, fields.description ?? null, at],
    );
    return rows.length > 0;
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `WITH deleted AS (DELETE FROM on_call_roster WHERE project_id = $1 AND id = $2 RETURNING id)
       SELECT id FROM deleted`,
      [projectId, id],
    );
    return rows.length > 0;
  }

  /** Members of the project's rosters `rosterIds`, by roster then position, with names. */
  members(projectId: string, rosterIds: readonly string[], db: Db = this.dataSource) {
    return db.query<MemberRow[]>(
      `SELECT m.id, m.roster_id, m.account_id, a.name, m.position
         FROM on_call_roster_member m
         JOIN on_call_roster r ON r.id = m.roster_id
         JOIN account a ON a.id = m.account_id
        WHERE r.project_id = $1 AND m.roster_id = ANY ($2::uuid[])
        ORDER BY m.roster_id, m.position`,
      [projectId, rosterIds],
    );
  }

  /** Phone contacts of the project's rosters `rosterIds`, by roster then label. */
  phoneContacts(projectId: string, rosterIds: readonly string[], db: Db = this.dataSource) {
    return db.query<PhoneContactRow[]>(
      `SELECT c.id, c.roster_id, c.label, c.phone_number, c.created_at, c.updated_at
         FROM on_call_roster_phone_contact c
         JOIN on_call_roster r ON r.id = c.roster_id
        WHERE r.project_id = $1 AND c.roster_id = ANY ($2::uuid[])
        ORDER BY c.roster_id, c.label, c.id`,
      [projectId, rosterIds],
    );
  }

  rotations(projectId: string, rosterIds: readonly string[], db: Db = this.dataSource) {
    return db.query<RotationRow[]>(
      `SELECT ${ROTATION_COLUMNS}
         FROM on_call_rotation rot
         JOIN on_call_roster r ON r.id = rot.roster_id
        WHERE r.project_id = $1 AND rot.roster_id = ANY ($2::uuid[])`,
      [projectId, rosterIds],
    );
  }

  /** Whether the account holds a membership in the organization the project belongs to. */
  async isOrganizationMember(db: Db, projectId: string, accountId: string): Promise<boolean> {
    const rows: unknown[] = await db.query(
      `SELECT 1 FROM project p
         JOIN membership m ON m.organization_id = p.organization_id
        WHERE p.id = $1 AND m.account_id = $2`,
      [projectId, accountId],
    );
    return rows.length > 0;
  }
}
