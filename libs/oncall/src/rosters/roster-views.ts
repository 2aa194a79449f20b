import type { OverrideRow } from './roster-schedule.repository.js';
import type { MemberRow, PhoneContactRow, RosterRow, RotationRow } from './rosters.repository.js';
import type {
  OnCallOverride,
  OnCallRoster,
  OnCallRosterMember,
  OnCallRosterPhoneContact,
  OnCallRotation,
  OnCallShift,
} from './rosters.openapi.js';
import type { Rotation, ShiftSegment } from './rotation-schedule.js';

/** A member as the API shows it (without its roster, which the path names). */
export function memberView(row: MemberRow): OnCallRosterMember {
  return { id: row.id, account_id: row.account_id, name: row.name, position: row.position };
}

export function phoneContactView(row: PhoneContactRow): OnCallRosterPhoneContact {
  return {
    id: row.id,
    roster_id: row.roster_id,
    label: row.label,
    phone_number: row.phone_number,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function rotationView(row: RotationRow): OnCallRotation {
  return {
    roster_id: row.roster_id,
    time_zone: row.time_zone,
    start_date: row.start_date,
    handoff_time: row.handoff_time,
    shift_length: row.shift_length,
    shift_hours: row.shift_hours,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function overrideView(row: OverrideRow): OnCallOverride {
  return {
    id: row.id,
    roster_id: row.roster_id,
    account_id: row.account_id,
    name: row.name,
    starts_at: row.starts_at,
    ends_at: row.ends_at,
    created_at: row.created_at,
  };
}

/** The roster with its members (rotation order), phone contacts (by label) and rotation. */
export function rosterView(
  row: RosterRow,
  parts: { members: MemberRow[]; contacts: PhoneContactRow[]; rotation: RotationRow | null },
): OnCallRoster {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    description: row.description,
    members: parts.members.map(memberView),
    phone_contacts: parts.contacts.map(phoneContactView),
    rotation: parts.rotation ? rotationView(parts.rotation) : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A stretch of the computed schedule, with the name of the account on call (null: unknown). */
export function shiftView(segment: ShiftSegment, name: string | null): OnCallShift {
  return {
    account_id: segment.accountId,
    name,
    starts_at: segment.startsAt,
    ends_at: segment.endsAt,
    source: segment.source,
  };
}

export function rotationOf(row: RotationRow): Rotation {
  return {
    timeZone: row.time_zone,
    startDate: row.start_date,
    handoffTime: row.handoff_time,
    shiftLength: row.shift_length,
    shiftHours: row.shift_hours,
  };
}
