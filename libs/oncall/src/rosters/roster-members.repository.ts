import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { MemberRow } from './rosters.repository.js';

/** The project's roster `$1`/`$2`, as every statement here reaches members through it. */
const ROSTER = 'SELECT id FROM on_call_roster WHERE project_id = $1 AND id = $2';

/**
 * Members of a roster in rotation order. Positions are 0-based and dense: every write runs in
 * a transaction holding the roster's lock (`RostersRepository.lock`) and moves the members
 * between the old and new place by one.
 */
@Injectable()
export class RosterMembersRepository {
  async find(
    db: EntityManager,
    projectId: string,
    rosterId: string,
    memberId: string,
  ): Promise<MemberRow | null> {
    const rows: MemberRow[] = await db.query(
      `SELECT m.id, m.roster_id, m.account_id, a.name, m.position
         FROM on_call_roster_member m JOIN account a ON a.id = m.account_id
        WHERE m.roster_id IN (${ROSTER}) AND m.id = $3`,
      [projectId, rosterId, memberId],
    );
    return rows[0] ?? null;
  }

  async count(db: EntityManager, projectId: string, rosterId: string): Promise<number> {
    const rows: Array<{ n: number }> = await db.query(
      `SELECT count(*)::int AS n FROM on_call_roster_member WHERE roster_id IN (${ROSTER})`,
      [projectId, rosterId],
    );
    return rows[0].n;
  }

  async holds(
    db: EntityManager,
    projectId: string,
    rosterId: string,
    accountId: string,
  ): Promise<boolean> {
    const rows: unknown[] = await db.query(
      `SELECT 1 FROM on_call_roster_member WHERE roster_id IN (${ROSTER}) AND account_id = $3`,
      [projectId, rosterId, accountId],
    );
    return rows.length > 0;
  }

  /** Inserts at `position` (at most the member count), moving later members down by one. */
  async insertAt(
    db: EntityManager,
    projectId: string,
    rosterId: string,
    accountId: string,
    position: number,
    at: Date,
  ): Promise<string> {
    await db.query(
      `UPDATE on_call_roster_member SET position = position + 1, updated_at = $4
        WHERE roster_id IN (${ROSTER}) AND position >= $3`,
      [projectId, rosterId, position, at],
    );
    const rows: Array<{ id: string }> = await db.query(
      `INSERT INTO on_call_roster_member (roster_id, account_id, position, created_at, updated_at)
       SELECT id, $3, $4, $5, $5 FROM on_call_roster WHERE project_id = $1 AND id = $2
       RETURNING id`,
      [projectId, rosterId, accountId, position, at],
    );
    return rows[0].id;
  }

  /** Moves a member from `from` to `to`, shifting the members in between by one. */
  async move(
    db: EntityManager,
    projectId: string,
    rosterId: string,
    memberId: string,
    from: number,
    to: number,
    at: Date,
  ): Promise<void> {
    if (from === to) return;
    const [low, high, delta] = to < from ? [to, from - 1, 1] : [from + 1, to, -1];
    await db.query(
      `UPDATE on_call_roster_member
          SET position = CASE WHEN id = $3 THEN $4 ELSE position + $5 END, updated_at = $8
        WHERE roster_id IN (${ROSTER}) AND (id = $3 OR position BETWEEN $6 AND $7)`,
      [projectId, rosterId, memberId, to, delta, low, high, at],
    );
  }

  /** Removes a member and closes the gap it leaves. False when it is not the roster's. */
  async remove(
    db: EntityManager,
    projectId: string,
    rosterId: string,
    memberId: string,
    at: Date,
  ): Promise<boolean> {
    const removed: Array<{ position: number }> = await db.query(
      `WITH deleted AS (
         DELETE FROM on_call_roster_member WHERE roster_id IN (${ROSTER}) AND id = $3
         RETURNING position)
       SELECT position FROM deleted`,
      [projectId, rosterId, memberId],
    );
    if (removed.length === 0) return false;
    await db.query(
      `UPDATE on_call_roster_member SET position = position - 1, updated_at = $4
        WHERE roster_id IN (${ROSTER}) AND position > $3`,
      [projectId, rosterId, removed[0].position, at],
    );
    return true;
  }
}
