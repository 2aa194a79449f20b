import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { chooseOnCall } from './on-call-choice.js';
import { type Rotation, scheduledMemberIndex, type ShiftLength } from './rotation-schedule.js';

/** An external phone contact of a roster, as paging needs it. */
export interface RosterContact {
  label: string;
  phoneNumber: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Holds a membership in the organization of roster `r`'s project (aliases r and the account). */
const IN_ORGANIZATION = (account: string) => `EXISTS (
  SELECT 1 FROM project p JOIN membership ms ON ms.organization_id = p.organization_id
   WHERE p.id = r.project_id AND ms.account_id = ${account})`;

/** A roster and its rotation's columns (all null without one). */
interface RosterRotationRow {
  id: string;
  time_zone: string | null;
  start_date: string | null;
  handoff_time: string | null;
  shift_length: ShiftLength | null;
  shift_hours: number | null;
}

const unique = (ids: readonly string[]) => [...new Set(ids.filter((id) => UUID.test(id)))];

function grouped<R extends { roster_id: string }, V>(rows: R[], value: (row: R) => V) {
  const byRoster = new Map<string, V[]>();
  for (const row of rows) {
    const list = byRoster.get(row.roster_id) ?? [];
    list.push(value(row));
    byRoster.set(row.roster_id, list);
  }
  return byRoster;
}

function rotationOf(row: RosterRotationRow): Rotation | null {
  if (row.time_zone === null) return null;
  return {
    timeZone: row.time_zone,
    startDate: row.start_date!,
    handoffTime: row.handoff_time!,
    shiftLength: row.shift_length!,
    shiftHours: row.shift_hours,
  };
}

/**
 * Who a roster reaches, batched over many rosters (escalation steps resolve thousands at once).
 * Only accounts that still hold a membership in the roster's organization count.
 */
@Injectable()
export class OnCallResolver {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Per roster id, the account on call at `at` (an array of zero or one): an override covering
   * `at` wins over the rotation (the latest-created override when several overlap); an account
   * with an active absence is skipped for the next member in rotation order; when every member
   * is absent, the scheduled one is paged anyway. A roster without rotation or members maps to
   * [] unless an override covers `at`. Rosters not found are absent from the map.
   *
   * An overriding account that is absent gives way to the rotation (with the same skipping);
   * when the rotation has nobody present either, the overriding account is paged anyway. Four
   * queries, whatever the number of rosters.
   */
  async onCall(rosterIds: readonly string[], at: Date): Promise<Map<string, string[]>> {
    const ids = unique(rosterIds);
    if (ids.length === 0) return new Map();
    const [rosters, members, overrides, absent] = await Promise.all([
      this.dataSource.query<RosterRotationRow[]>(
        `SELECT r.id, rot.time_zone,
                to_char(rot.start_date, 'YYYY-MM-DD') AS start_date, rot.handoff_time,
                rot.shift_length, rot.shift_hours
           FROM on_call_roster r LEFT JOIN on_call_rotation rot ON rot.roster_id = r.id
          WHERE r.id = ANY ($1::uuid[])`,
        [ids],
      ),
      this.memberRows(ids),
      this.dataSource.query<Array<{ roster_id: string; account_id: string }>>(
        `SELECT DISTINCT ON (o.roster_id) o.roster_id, o.account_id
           FROM on_call_override o JOIN on_call_roster r ON r.id = o.roster_id
          WHERE o.roster_id = ANY ($1::uuid[]) AND o.starts_at <= $2 AND o.ends_at > $2
            AND ${IN_ORGANIZATION('o.account_id')}
          ORDER BY o.roster_id, o.created_at DESC, o.id DESC`,
        [ids, at],
      ),
      // Absences (half-open [starts_at, ends_at)) of every account these rosters could page.
      this.dataSource.query<Array<{ account_id: string }>>(
        `SELECT DISTINCT a.account_id FROM notification_absence a
          WHERE a.starts_at <= $2 AND a.ends_at > $2
            AND a.account_id IN (
              SELECT account_id FROM on_call_roster_member WHERE roster_id = ANY ($1::uuid[])
              UNION
              SELECT account_id FROM on_call_override
               WHERE roster_id = ANY ($1::uuid[]) AND starts_at <= $2 AND ends_at > $2)`,
        [ids, at],
      ),
    ]);
    const membersOf = grouped(members, (row) => row.account_id);
    const overrideOf = new Map(overrides.map((o) => [o.roster_id, o.account_id]));
    const absentIds = new Set(absent.map((a) => a.account_id));

    const onCall = new Map<string, string[]>();
    for (const roster of rosters) {
      const rosterMembers = membersOf.get(roster.id) ?? [];
      const rotation = rotationOf(roster);
      const chosen = chooseOnCall({
        members: rosterMembers,
        scheduledIndex: scheduledMemberIndex(rotation, rosterMembers.length, at),
        overrideAccountId: overrideOf.get(roster.id) ?? null,
        isAbsent: (accountId) => absentIds.has(accountId),
      });
      onCall.set(roster.id, chosen === null ? [] : [chosen]);
    }
    return onCall;
  }

  /** Per roster id, every member account in rotation order. */
  async members(rosterIds: readonly string[]): Promise<Map<string, string[]>> {
    const ids = unique(rosterIds);
    if (ids.length === 0) return new Map();
    const [rosters, rows] = await Promise.all([this.existing(ids), this.memberRows(ids)]);
    const membersOf = grouped(rows, (row) => row.account_id);
    return new Map(rosters.map((id) => [id, membersOf.get(id) ?? []]));
  }

  /** Per roster id, its external phone contacts ordered by label. */
  async phoneContacts(rosterIds: readonly string[]): Promise<Map<string, RosterContact[]>> {
    const ids = unique(rosterIds);
    if (ids.length === 0) return new Map();
    const [rosters, rows] = await Promise.all([
      this.existing(ids),
      this.dataSource.query<Array<{ roster_id: string; label: string; phone_number: string }>>(
        `SELECT roster_id, label, phone_number FROM on_call_roster_phone_contact
          WHERE roster_id = ANY ($1::uuid[])
          ORDER BY roster_id, label, id`,
        [ids],
      ),
    ]);
    const contactsOf = grouped(rows, (row) => ({
      label: row.label,
      phoneNumber: row.phone_number,
    }));
    return new Map(rosters.map((id) => [id, contactsOf.get(id) ?? []]));
  }

  private async existing(ids: string[]): Promise<string[]> {
    const rows = await this.dataSource.query<Array<{ id: string }>>(
      'SELECT id FROM on_call_roster WHERE id = ANY ($1::uuid[])',
      [ids],
    );
    return rows.map((r) => r.id);
  }

  /** Members that may be paged (holding a membership in the organization), in position order. */
  private memberRows(ids: string[]) {
    return this.dataSource.query<Array<{ roster_id: string; account_id: string }>>(
      `SELECT m.roster_id, m.account_id
         FROM on_call_roster_member m JOIN on_call_roster r ON r.id = m.roster_id
        WHERE m.roster_id = ANY ($1::uuid[]) AND ${IN_ORGANIZATION('m.account_id')}
        ORDER BY m.roster_id, m.position`,
      [ids],
    );
  }
}
