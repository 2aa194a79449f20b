import type { AlertRouteRow } from '../routes/alert-routes.repository.js';

export interface Membership {
  account_id: string;
  role: string;
}

export type InAppTarget = Pick<
  AlertRouteRow,
  | 'in_app_target_type'
  | 'in_app_target_roster_id'
  | 'in_app_target_member_id'
  | 'in_app_target_role'
>;

/**
 * The accounts a route's in-app target names, among the organization's current members:
 * - org_admins: the organization's admins;
 * - member: that account, while it holds a membership (none once it left);
 * - role Admin: the admins; role Member: every member who is not an admin (the spec's two
 *   roles: organization admins, and everyone else);
 * - roster: the roster's on-call account at dispatch time (`onCall`, by roster id), while it
 *   holds a membership;
 * - none: nobody.
 */
export function inAppRecipients(
  target: InAppTarget,
  members: readonly Membership[],
  onCall: ReadonlyMap<string, readonly string[]> = new Map(),
): string[] {
  const admins = () => members.filter((m) => m.role === 'admin').map((m) => m.account_id);
  switch (target.in_app_target_type) {
    case 'org_admins':
      return admins();
    case 'member':
      return members.some((m) => m.account_id === target.in_app_target_member_id)
        ? [target.in_app_target_member_id!]
        : [];
    case 'role':
      if (target.in_app_target_role === 'Admin') return admins();
      if (target.in_app_target_role === 'Member')
        return members.filter((m) => m.role !== 'admin').map((m) => m.account_id);
      return [];
    case 'roster': {
      const current = new Set(members.map((m) => m.account_id));
      const rosterId = target.in_app_target_roster_id;
      return (rosterId ? (onCall.get(rosterId) ?? []) : []).filter((id) => current.has(id));
    }
    case 'none':
      return [];
  }
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
