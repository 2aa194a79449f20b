import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { onCallNotFound, onCallValidation } from '../oncall-exception.js';
import { RosterScheduleRepository } from './roster-schedule.repository.js';
import { rosterView, rotationOf, shiftView } from './roster-views.js';
import {
  type CreateRosterBody,
  parseInstant,
  type ShiftsQuery,
  type UpdateRosterBody,
} from './rosters.dto.js';
import { type RosterRow, RostersRepository } from './rosters.repository.js';
import { computeShifts, type ShiftSegment } from './rotation-schedule.js';

export const MAX_SHIFTS_WINDOW_DAYS = 90;
const DAY_MS = 86_400_000;

const groupBy = <T extends { roster_id: string }>(rows: T[]) => {
  const byRoster = new Map<string, T[]>();
  for (const row of rows)
    byRoster.set(row.roster_id, [...(byRoster.get(row.roster_id) ?? []), row]);
  return byRoster;
};

/**
 * On-call rosters of a project. Names are trimmed, 1..200 characters and need not be unique;
 * the list is ordered by name, then id. A roster view carries its members, phone contacts and
 * rotation (null without one); overrides are listed on their own resource, as they accumulate.
 * Deleting a roster deletes its members, contacts, rotation and overrides; routes and
 * escalation steps that targeted it keep their place without a roster.
 */
@Injectable()
export class RostersService {
  constructor(
    private readonly clock: Clock,
    private readonly rosters: RostersRepository,
    private readonly schedule: RosterScheduleRepository,
  ) {}

  async list(projectId: string) {
    return this.views(projectId, await this.rosters.list(projectId));
  }

  async show(projectId: string, id: string) {
    const row = await this.rosters.find(projectId, id);
    if (!row) throw onCallNotFound('On-call roster');
    return (await this.views(projectId, [row]))[0];
  }

  async create(projectId: string, body: CreateRosterBody) {
    const id = await this.rosters.insert(
      projectId,
      { name: body.name.trim(), description: (body.description ?? '').trim() },
      this.clock.now(),
    );
    return this.show(projectId, id);
  }

  async update(projectId: string, id: string, body: UpdateRosterBody) {
    const fields = {
      name: body.name?.trim(),
      description: body.description === undefined ? undefined : (body.description ?? '').trim(),
    };
    if (!(await this.rosters.update(projectId, id, fields, this.clock.now())))
      throw onCallNotFound('On-call roster');
    return this.show(projectId, id);
  }

  async delete(projectId: string, id: string): Promise<void> {
    if (!(await this.rosters.delete(projectId, id))) throw onCallNotFound('On-call roster');
  }

  /**
   * Who is on call between `from` and `to` (at most 90 days apart), clipped to that window:
   * rotation shifts with overrides cutting into them. Only accounts holding a membership in the
   * organization take part (a member who left is skipped by the rotation, as when paging).
   * Absences are not applied: they decide who is paged at the moment, not the schedule.
   */
  async shifts(projectId: string, id: string, query: ShiftsQuery) {
    const from = parseInstant(query.from);
    const to = parseInstant(query.to);
    if (!(await this.rosters.find(projectId, id))) throw onCallNotFound('On-call roster');
    if (to.getTime() <= from.getTime())
      throw onCallValidation([{ field: 'to', messages: ['to must be after from'] }]);
    if (to.getTime() - from.getTime() > MAX_SHIFTS_WINDOW_DAYS * DAY_MS)
      throw onCallValidation([
        {
          field: 'to',
          messages: [`to must be at most ${MAX_SHIFTS_WINDOW_DAYS} days after from`],
        },
      ]);

    const shifts = await this.shiftsBetween(projectId, id, from, to);
    return shifts.map(({ segment, name }) => shiftView(segment, name));
  }

  /**
   * The shifts of a roster between `from` and `to`, clipped to that window, each with the
   * name of its account (null when the account is gone); the caller checked the roster and
   * the window.
   */
  async shiftsBetween(
    projectId: string,
    rosterId: string,
    from: Date,
    to: Date,
  ): Promise<Array<{ segment: ShiftSegment; name: string | null }>> {
    const inputs = await this.schedule.shiftInputs(projectId, rosterId, from, to);
    const names = new Map<string, string | null>();
    for (const m of inputs.members) names.set(m.account_id, m.name);
    for (const o of inputs.overrides) names.set(o.account_id, o.name);
    const shifts = computeShifts({
      rotation: inputs.rotation ? rotationOf(inputs.rotation) : null,
      members: inputs.members.map((m) => m.account_id),
      overrides: inputs.overrides.map((o) => ({
        id: o.id,
        accountId: o.account_id,
        startsAt: o.starts_at,
        endsAt: o.ends_at,
        createdAt: o.created_at,
      })),
      from,
      to,
    });
    return shifts.map((segment) => ({ segment, name: names.get(segment.accountId) ?? null }));
  }

  /** Views of several rosters in three queries beside the rosters' own. */
  private async views(projectId: string, rows: RosterRow[]) {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const [members, contacts, rotations] = await Promise.all([
      this.rosters.members(projectId, ids),
      this.rosters.phoneContacts(projectId, ids),
      this.rosters.rotations(projectId, ids),
    ]);
    const membersOf = groupBy(members);
    const contactsOf = groupBy(contacts);
    const rotationFor = new Map(rotations.map((r) => [r.roster_id, r]));
    return rows.map((row) =>
      rosterView(row, {
        members: membersOf.get(row.id) ?? [],
        contacts: contactsOf.get(row.id) ?? [],
        rotation: rotationFor.get(row.id) ?? null,
      }),
    );
  }
}
