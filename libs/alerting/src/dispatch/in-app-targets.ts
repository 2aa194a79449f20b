import type { Recipient, RecipientTarget } from '@platform/oncall';
import type { AlertRouteRow } from '../routes/alert-routes.repository.js';

export type InAppTarget = Pick<
  AlertRouteRow,
  | 'in_app_target_type'
  | 'in_app_target_roster_id'
  | 'in_app_target_member_id'
  | 'in_app_target_role'
>;

/**
 * A route's in-app target in the words of `TargetResolver`. The API's `roster` (fixed by the
 * spec) is the roster's on-call account at dispatch time, `roster_on_call`; the other types
 * keep their names: org_admins, member (while it holds a membership), role (`Admin`: the
 * admins; `Member`: every member who is not an admin), none.
 */
export function routeTarget(target: InAppTarget): RecipientTarget {
  const type = target.in_app_target_type;
  return {
    kind: type === 'roster' ? 'roster_on_call' : type,
    rosterId: target.in_app_target_roster_id,
    memberId: target.in_app_target_member_id,
    role: target.in_app_target_role,
  };
}

/** The accounts among resolved recipients (a route's targets never name phone contacts). */
export function accountsOf(recipients: readonly Recipient[]): string[] {
  return recipients.flatMap((r) => (r.kind === 'account' ? [r.accountId] : []));
}

/** The `notified` timeline event's account of whom a route's target reached. */
export function notifiedDetails(
  routeId: string,
  target: InAppTarget,
  recipients: readonly string[],
): Record<string, unknown> {
  const details: Record<string, unknown> = {
    route_id: routeId,
    target: target.in_app_target_type,
  };
  if (target.in_app_target_type === 'roster') details.roster_id = target.in_app_target_roster_id;
  if (target.in_app_target_type === 'member') details.member_id = target.in_app_target_member_id;
  if (target.in_app_target_type === 'role') details.role = target.in_app_target_role;
  details.recipients = [...recipients].sort();
  return details;
}
