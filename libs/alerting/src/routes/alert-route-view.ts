import type { AlertRouteResponseDto } from '../alerting.openapi.js';
import type { AlertRouteRow } from './alert-routes.repository.js';
import type { RoutableRoute } from './routing.js';

/** The route as the API shows it. */
export function alertRouteView(row: AlertRouteRow): AlertRouteResponseDto {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    priority: row.priority,
    matchers: row.matchers,
    escalation_chain_id: row.escalation_chain_id,
    in_app_target_type: row.in_app_target_type,
    in_app_target_roster_id: row.in_app_target_roster_id,
    in_app_target_member_id: row.in_app_target_member_id,
    in_app_target_role: row.in_app_target_role,
    min_severity_for_notification: row.min_severity_for_notification,
    notification_endpoint_ids: row.notification_endpoint_ids,
    cooldown_seconds: row.cooldown_seconds,
    bundle_window_seconds: row.bundle_window_seconds,
    last_notified_at: row.last_notified_at,
    enabled: row.enabled,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A stored route as routing sees it. */
export function routableOf<
  R extends Pick<
    AlertRouteRow,
    'id' | 'priority' | 'created_at' | 'enabled' | 'matchers' | 'min_severity_for_notification'
  >,
>(row: R): RoutableRoute & { row: R } {
  return {
    id: row.id,
    priority: row.priority,
    createdAt: row.created_at,
    enabled: row.enabled,
    matchers: row.matchers,
    minSeverity: row.min_severity_for_notification,
    row,
  };
}

/** When the route's cooldown ends, if one is in progress at `now`; else null. */
export function cooldownUntil(
  route: Pick<AlertRouteRow, 'cooldown_seconds' | 'last_notified_at'>,
  now: Date,
): Date | null {
  if (route.cooldown_seconds === null || route.last_notified_at === null) return null;
  const until = new Date(route.last_notified_at.getTime() + route.cooldown_seconds * 1000);
  return until.getTime() > now.getTime() ? until : null;
}
