import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { PhoneContactRow } from './rosters.repository.js';

const ROSTER = 'SELECT id FROM on_call_roster WHERE project_id = $1 AND id = $2';
const COLUMNS = 'id, roster_id, label, phone_number, created_at, updated_at';

/**
 * External phone contacts of a roster. Writes run under the roster's lock, so the label check
 * before a write cannot race another request of the same roster.
 */
@Injectable()
export class RosterContactsRepository {
  async find(
    db: EntityManager,
    projectId: string,
    rosterId: string,
    contactId: string,
  ): Promise<PhoneContactRow | null> {
    const rows: PhoneContactRow[] = await db.query(
      `SELECT ${COLUMNS} FROM on_call_roster_phone_contact
        WHERE roster_id IN (${ROSTER}) AND id = $3`,
      [projectId, rosterId, contactId],
    );
    return rows[0] ?? null;
  }

  /** Whether another contact of the roster (not `exceptId`) has this label. */
  async labelTaken(
    db: EntityManager,
    projectId: string,
    rosterId: string,
    label: string,
    exceptId: string | null,
  ): Promise<boolean> {
    const rows: unknown[] = await db.query(
      `SELECT 1 FROM on_call_roster_phone_contact
        WHERE roster_id IN (${ROSTER}) AND label = $3 AND id IS DISTINCT FROM $4::uuid`,
      [projectId, rosterId, label, exceptId],
    );
    return rows.length > 0;
  }

  async insert(
    db: EntityManager,
    projectId: string,
    rosterId: string,
    fields: { label: string; phoneNumber: string },
    at: Date,
  ): Promise<PhoneContactRow> {
    const rows: PhoneContactRow[] = await db.query(
      `INSERT INTO on_call_roster_phone_contact (roster_id, label, phone_number, created_at, updated_at)
       SELECT id, $3, $4, $5, $5 FROM on_call_roster WHERE project_id = $1 AND id = $2
       RETURNING ${COLUMNS}`,
      [projectId, rosterId, fields.label, fields.phoneNumber, at],
    );
    return rows[0];
  }

  async update(
    db: EntityManager,
    projectId: string,
    rosterId: string,
    contactId: string,
    fields: { label: string; phoneNumber: string },
    at: Date,
  ): Promise<PhoneContactRow> {
    const rows: PhoneContactRow[] = await db.query(
      `WITH updated AS (
         UPDATE on_call_roster_phone_contact SET label = $4, phone_number = $5, updated_at = $6
          WHERE roster_id IN (${ROSTER}) AND id = $3
          RETURNING ${COLUMNS})
       SELECT ${COLUMNS} FROM updated`,
      [projectId, rosterId, contactId, fields.label, fields.phoneNumber, at],
    );
    return rows[0];
  }

  async delete(
    db: EntityManager,
    projectId: string,
    rosterId: string,
    contactId: string,
  ): Promise<boolean> {
    const rows: unknown[] = await db.query(
      `WITH deleted AS (
         DELETE FROM on_call_roster_phone_contact WHERE roster_id IN (${ROSTER}) AND id = $3
         RETURNING id)
       SELECT id FROM deleted`,
      [projectId, rosterId, contactId],
    );
    return rows.length > 0;
  }
}
