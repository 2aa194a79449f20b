import { AlertingErrorCode, AlertingException, alertingValidation } from '../alerting-exception.js';
import { type Matcher, matcherProblems } from '../matchers/matchers.js';
import { isSeverity, SEVERITIES, type Severity } from '../severity.js';
import {
  type CreateAlertRouteBody,
  MAX_MATCHERS,
  type UpdateAlertRouteBody,
} from './alert-routes.dto.js';
import type {
  AlertRouteFields,
  AlertRouteRow,
  InAppTargetRole,
  InAppTargetType,
} from './alert-routes.repository.js';

export type FieldProblem = { field: string; messages: string[] };
export type RouteBody = CreateAlertRouteBody | UpdateAlertRouteBody;

/** An id the merged route refers to, which must belong to the project. */
export interface RouteReference {
  kind: 'roster' | 'member' | 'chain';
  id: string;
  /** What to report when it does not. */
  problem: FieldProblem;
}

export interface MergedRoute {
  fields: AlertRouteFields;
  /** What is wrong with the body, as far as it can be told without the database. */
  problems: FieldProblem[];
  /** To check in the database, in order; their problems are reported after `problems`. */
  references: RouteReference[];
  /**
   * The endpoint ids asked for: ids only, lower-case, each once (those of other projects are
   * still to be dropped). Undefined when the attached set stays as it is.
   */
  endpointIds: string[] | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const TARGET_FIELDS = [
  'in_app_target_type',
  'in_app_target_roster_id',
  'in_app_target_member_id',
  'in_app_target_role',
] as const;

/**
 * `min_severity_for_notification`: null, "", or "any" in any case mean any severity (stored
 * null); severities are accepted in any case and stored lower-case; anything else is refused.
 */
export function parseMinSeverity(value: string | null):
  | { ok: true; value: Severity | null }
  | {
      ok: false;
    } {
  if (value === null) return { ok: true, value: null };
  const normalized = value.trim().toLowerCase();
  if (normalized === '' || normalized === 'any') return { ok: true, value: null };
  return isSeverity(normalized) ? { ok: true, value: normalized } : { ok: false };
}

/**
 * The route's state after applying `body` to `current` (null on create), with what is wrong
 * with it and what the database must still confirm. Pure.
 */
export function mergeAlertRoute(current: AlertRouteRow | null, body: RouteBody): MergedRoute {
  const problems: FieldProblem[] = [];
  const given = (key: keyof RouteBody) => body[key] !== undefined;
  const matchers = mergeMatchers(current, body, problems);

  let minSeverity = current?.min_severity_for_notification ?? null;
  if (given('min_severity_for_notification')) {
    const parsed = parseMinSeverity(body.min_severity_for_notification ?? null);
    if (parsed.ok) minSeverity = parsed.value;
    else
      problems.push({
        field: 'min_severity_for_notification',
        messages: [
          `min_severity_for_notification must be one of ${SEVERITIES.join(', ')}, any, "" or null`,
        ],
      });
  }

  const target = mergeTarget(current, body, problems);
  const references = target.references;
  let chainId = current?.escalation_chain_id ?? null;
  if (given('escalation_chain_id')) {
    chainId = body.escalation_chain_id ?? null;
    if (chainId !== null)
      references.push({
        kind: 'chain',
        id: chainId,
        problem: {
          field: 'escalation_chain_id',
          messages: ['escalation_chain_id must be an escalation chain of this project'],
        },
      });
  }

  const fields: AlertRouteFields = {
    name: given('name') ? (body.name ?? '') : (current?.name ?? ''),
    priority: body.priority ?? current!.priority,
    matchers,
    escalation_chain_id: chainId,
    ...target.fields,
    min_severity_for_notification: minSeverity,
    cooldown_seconds: given('cooldown_seconds')
      ? (body.cooldown_seconds ?? null)
      : (current?.cooldown_seconds ?? null),
    bundle_window_seconds: body.bundle_window_seconds ?? current?.bundle_window_seconds ?? 0,
    enabled: body.enabled ?? current?.enabled ?? true,
  };
  const endpointIds = given('notification_endpoint_ids')
    ? [
        ...new Set(
          (body.notification_endpoint_ids ?? [])
            .filter((id) => UUID.test(id))
            .map((id) => id.toLowerCase()),
        ),
      ]
    : undefined;
  return { fields, problems, references, endpointIds };
}

/** 422 `validation_failed` naming every problem, if there is any. */
export function assertNoProblems(problems: FieldProblem[]): void {
  if (problems.length > 0) throw alertingValidation(problems);
}

/**
 * 422 `route_does_nothing` unless the route has an in-app target other than none, a chain,
 * or an enabled endpoint among `endpoints` (those it will have attached).
 */
export function assertDoesSomething(
  fields: AlertRouteFields,
  endpoints: ReadonlyArray<{ enabled: boolean }>,
): void {
  const enabledEndpoints = endpoints.filter((e) => e.enabled).length;
  if (
    fields.in_app_target_type !== 'none' ||
    fields.escalation_chain_id !== null ||
    enabledEndpoints > 0
  )
    return;
  throw new AlertingException(
    AlertingErrorCode.RouteDoesNothing,
    'A route must do something: choose an in-app target other than none, an escalation chain, or attach at least one enabled notification endpoint',
    {
      details: {
        in_app_target_type: fields.in_app_target_type,
        escalation_chain_id: fields.escalation_chain_id,
        enabled_notification_endpoints: enabledEndpoints,
      },
    },
  );
}

/** The matchers given, validated, or the current ones; null clears them. */
function mergeMatchers(
  current: AlertRouteRow | null,
  body: RouteBody,
  problems: FieldProblem[],
): Matcher[] {
  if (body.matchers === undefined) return current?.matchers ?? [];
  const found = matcherProblems(body.matchers);
  problems.push(...found);
  if (!Array.isArray(body.matchers)) return body.matchers === null ? [] : (current?.matchers ?? []);
  if (body.matchers.length > MAX_MATCHERS)
    problems.push({
      field: 'matchers',
      messages: [`matchers must contain no more than ${MAX_MATCHERS} elements`],
    });
  if (found.length > 0) return current?.matchers ?? [];
  return (body.matchers as Matcher[]).map(({ label, op, value }) => ({ label, op, value }));
}

type TargetFields = Pick<AlertRouteFields, (typeof TARGET_FIELDS)[number]>;

/**
 * The in-app target: ids that do not belong to its type are stored null. Checked on create and
 * whenever the body sends a target field.
 */
function mergeTarget(
  current: AlertRouteRow | null,
  body: RouteBody,
  problems: FieldProblem[],
): { fields: TargetFields; references: RouteReference[] } {
  const given = (key: keyof RouteBody) => body[key] !== undefined;
  const type: InAppTargetType =
    body.in_app_target_type ?? current?.in_app_target_type ?? 'org_admins';
  const pick = <K extends (typeof TARGET_FIELDS)[number]>(key: K) =>
    (given(key) ? body[key] : current?.[key]) ?? null;
  const rosterId = type === 'roster' ? pick('in_app_target_roster_id') : null;
  const memberId = type === 'member' ? pick('in_app_target_member_id') : null;
  const role: InAppTargetRole | null = type === 'role' ? pick('in_app_target_role') : null;
  const references: RouteReference[] = [];
  if (current === null || TARGET_FIELDS.some(given)) {
    if (type === 'roster') {
      if (rosterId === null) problems.push(requiredFor('in_app_target_roster_id', type));
      else
        references.push({
          kind: 'roster',
          id: rosterId,
          problem: {
            field: 'in_app_target_roster_id',
            messages: ['in_app_target_roster_id must be an on-call roster of this project'],
          },
        });
    }
    if (type === 'member') {
      if (memberId === null) problems.push(requiredFor('in_app_target_member_id', type));
      else
        references.push({
          kind: 'member',
          id: memberId,
          problem: {
            field: 'in_app_target_member_id',
            messages: [
              "in_app_target_member_id must be an account holding a membership in the project's organization",
            ],
          },
        });
    }
    if (type === 'role' && role === null) problems.push(requiredFor('in_app_target_role', type));
  }
  return {
    fields: {
      in_app_target_type: type,
      in_app_target_roster_id: rosterId,
      in_app_target_member_id: memberId,
      in_app_target_role: role,
    },
    references,
  };
}

function requiredFor(field: string, type: string): FieldProblem {
  return { field, messages: [`${field} is required when in_app_target_type is ${type}`] };
}
