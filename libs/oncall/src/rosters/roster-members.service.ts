import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import type { EntityManager } from 'typeorm';
import { onCallNotFound, onCallValidation } from '../oncall-exception.js';
import { RosterMembersRepository } from './roster-members.repository.js';
import { memberView } from './roster-views.js';
import type { AddMemberBody, MoveMemberBody } from './rosters.dto.js';
import { RostersRepository } from './rosters.repository.js';

/**
 * Members of a roster, in rotation order (`position`, 0-based and dense). Adding needs an
 * account holding a membership in the project's organization that is not yet on the roster;
 * it is appended, or inserted at `position` (0..count) with later members moving down. Moving
 * to `position` (0..count-1) shifts the members in between; removing closes the gap. An
 * account that later leaves the organization stays listed until removed, but the rotation and
 * paging skip it.
 */
@Injectable()
export class RosterMembersService {
  constructor(
    private readonly clock: Clock,
    private readonly rosters: RostersRepository,
    private readonly members: RosterMembersRepository,
  ) {}

  async list(projectId: string, rosterId: string) {
    if (!(await this.rosters.find(projectId, rosterId))) throw onCallNotFound('On-call roster');
    return (await this.rosters.members(projectId, [rosterId])).map(memberView);
  }

  add(projectId: string, rosterId: string, body: AddMemberBody) {
    return this.rosters.transaction(async (manager) => {
      await this.lock(manager, projectId, rosterId);
      const count = await this.members.count(manager, projectId, rosterId);
      const problems: Array<{ field: string; messages: string[] }> = [];
      if (!(await this.rosters.isOrganizationMember(manager, projectId, body.account_id)))
        problems.push({
          field: 'account_id',
          messages: [
            "account_id must be an account holding a membership in the project's organization",
          ],
        });
      else if (await this.members.holds(manager, projectId, rosterId, body.account_id))
        problems.push({ field: 'account_id', messages: ['account_id is already on this roster'] });
      const position = body.position ?? count;
      if (position > count)
        problems.push({
          field: 'position',
          messages: [`position must be between 0 and ${count}`],
        });
      if (problems.length > 0) throw onCallValidation(problems);
      const id = await this.members.insertAt(
        manager,
        projectId,
        rosterId,
        body.account_id,
        position,
        this.clock.now(),
      );
      return memberView((await this.members.find(manager, projectId, rosterId, id))!);
    });
  }

  move(projectId: string, rosterId: string, memberId: string, body: MoveMemberBody) {
    return this.rosters.transaction(async (manager) => {
      await this.lock(manager, projectId, rosterId);
      const member = await this.members.find(manager, projectId, rosterId, memberId);
      if (!member) throw onCallNotFound('Roster member');
      const count = await this.members.count(manager, projectId, rosterId);
      if (body.position > count - 1)
        throw onCallValidation([
          { field: 'position', messages: [`position must be between 0 and ${count - 1}`] },
        ]);
      await this.members.move(
        manager,
        projectId,
        rosterId,
        memberId,
        member.position,
        body.position,
        this.clock.now(),
      );
      return memberView((await this.members.find(manager, projectId, rosterId, memberId))!);
    });
  }

  async remove(projectId: string, rosterId: string, memberId: string): Promise<void> {
    await this.rosters.transaction(async (manager) => {
      await this.lock(manager, projectId, rosterId);
      if (!(await this.members.remove(manager, projectId, rosterId, memberId, this.clock.now())))
        throw onCallNotFound('Roster member');
    });
  }

  private async lock(manager: EntityManager, projectId: string, rosterId: string): Promise<void> {
    if (!(await this.rosters.lock(manager, projectId, rosterId)))
      throw onCallNotFound('On-call roster');
  }
}
