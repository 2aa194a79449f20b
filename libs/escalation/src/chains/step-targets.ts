import { Injectable } from '@nestjs/common';
import { type RecipientTarget, TargetResolver } from '@platform/oncall';
import type { PageRecipient, StepSnapshot } from './chain-snapshot.js';

/** A step to resolve, in the organization of the escalation's project. */
export interface StepTargetRequest {
  organizationId: string;
  step: StepSnapshot;
}

/** A step's target in the words of `TargetResolver` (step target types are its kinds). */
function stepTarget(step: StepSnapshot): RecipientTarget {
  return {
    kind: step.target_type,
    rosterId: step.target_roster_id,
    memberId: step.target_member_id,
    role: step.target_role,
  };
}

/**
 * Who steps page at a given time: `TargetResolver` over their targets, so any number of steps
 * resolve in a constant number of queries (due steps of thousands of escalations resolve at
 * once). Accounts appear once per step, only while they are members of the organization; a
 * target whose roster or member was deleted pages nobody.
 */
@Injectable()
export class StepTargetResolver {
  constructor(private readonly targets: TargetResolver) {}

  resolve(requests: readonly StepTargetRequest[], at: Date): Promise<PageRecipient[][]> {
    return this.targets.resolve(
      requests.map(({ organizationId, step }) => ({ organizationId, target: stepTarget(step) })),
      at,
    );
  }
}
