import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { onCallNotFound, onCallValidation } from '../oncall-exception.js';
import { RosterScheduleRepository } from './roster-schedule.repository.js';
import { overrideView, rotationView } from './roster-views.js';
import {
  type CreateOverrideBody,
  type ListOverridesQuery,
  parseInstant,
  type PutRotationBody,
} from './rosters.dto.js';
import { RostersRepository } from './rosters.repository.js';

/**
 * The zone name as the time zone database spells it when only the case differs
 * (europe/berlin → Europe/Berlin); aliases such as US/Eastern stay as given.
 */
function canonicalCase(zone: string): string {
  const resolved = new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  return resolved.toLowerCase() === zone.toLowerCase() ? resolved : zone;
}

/**
 * A roster's rotation and overrides.
 *
 * Rotation (at most one per roster, replaced whole by PUT): the first handoff is `start_date`
 * at `handoff_time` in `time_zone`; before it nobody is on call by rotation. Daily and weekly
 * handoffs stay at that local wall-clock time across DST changes; `hours` shifts last exactly
 * `shift_hours` elapsed hours. A handoff time the clocks skip happens that much later; one
 * they repeat happens at its first occurrence. Member i (by position) takes shift k where
 * i = k mod member count, so adding, moving or removing members re-deals the rotation.
 *
 * Overrides put an account (holding a membership in the organization) on call for
 * [starts_at, ends_at), past or future; where overrides overlap the latest created wins. They
 * are not edited: delete and create another.
 */
@Injectable()
export class RosterScheduleService {
  constructor(
    private readonly clock: Clock,
    private readonly rosters: RostersRepository,
    private readonly schedule: RosterScheduleRepository,
  ) {}

  async rotation(projectId: string, rosterId: string) {
    await this.assertRoster(projectId, rosterId);
    const row = await this.schedule.rotation(projectId, rosterId);
    if (!row) throw onCallNotFound('Rotation');
    return rotationView(row);
  }

  putRotation(projectId: string, rosterId: string, body: PutRotationBody) {
    return this.rosters.transaction(async (manager) => {
      if (!(await this.rosters.lock(manager, projectId, rosterId)))
        throw onCallNotFound('On-call roster');
      const row = await this.schedule.putRotation(
        manager,
        projectId,
        rosterId,
        {
          timeZone: canonicalCase(body.time_zone),
          startDate: body.start_date,
          handoffTime: body.handoff_time,
          shiftLength: body.shift_length,
          shiftHours: body.shift_length === 'hours' ? body.shift_hours! : null,
        },
        this.clock.now(),
      );
      return rotationView(row);
    });
  }

  async deleteRotation(projectId: string, rosterId: string): Promise<void> {
    await this.assertRoster(projectId, rosterId);
    if (!(await this.schedule.deleteRotation(projectId, rosterId)))
      throw onCallNotFound('Rotation');
  }

  async overrides(projectId: string, rosterId: string, query: ListOverridesQuery) {
    const from = query.from === undefined ? null : parseInstant(query.from);
    const to = query.to === undefined ? null : parseInstant(query.to);
    if (from && to && to.getTime() <= from.getTime())
      throw onCallValidation([{ field: 'to', messages: ['to must be after from'] }]);
    await this.assertRoster(projectId, rosterId);
    return (await this.schedule.overrides(projectId, rosterId, { from, to })).map(overrideView);
  }

  async override(projectId: string, rosterId: string, overrideId: string) {
    await this.assertRoster(projectId, rosterId);
    const row = await this.schedule.override(projectId, rosterId, overrideId);
    if (!row) throw onCallNotFound('Override');
    return overrideView(row);
  }

  createOverride(projectId: string, rosterId: string, body: CreateOverrideBody) {
    return this.rosters.transaction(async (manager) => {
      if (!(await this.rosters.lock(manager, projectId, rosterId)))
        throw onCallNotFound('On-call roster');
      const startsAt = parseInstant(body.starts_at);
      const endsAt = parseInstant(body.ends_at);
      const problems: Array<{ field: string; messages: string[] }> = [];
      if (!(await this.rosters.isOrganizationMember(manager, projectId, body.account_id)))
        problems.push({
          field: 'account_id',
          messages: [
            "account_id must be an account holding a membership in the project's organization",
          ],
        });
      if (endsAt.getTime() <= startsAt.getTime())
        problems.push({ field: 'ends_at', messages: ['ends_at must be after starts_at'] });
      if (problems.length > 0) throw onCallValidation(problems);
      const id = await this.schedule.insertOverride(
        manager,
        projectId,
        rosterId,
        { accountId: body.account_id, startsAt, endsAt },
        this.clock.now(),
      );
      return overrideView((await this.schedule.override(projectId, rosterId, id, manager))!);
    });
  }

  async deleteOverride(projectId: string, rosterId: string, overrideId: string): Promise<void> {
    await this.assertRoster(projectId, rosterId);
    if (!(await this.schedule.deleteOverride(projectId, rosterId, overrideId)))
      throw onCallNotFound('Override');
  }

  private async assertRoster(projectId: string, rosterId: string): Promise<void> {
    if (!(await this.rosters.find(projectId, rosterId))) throw onCallNotFound('On-call roster');
  }
}
