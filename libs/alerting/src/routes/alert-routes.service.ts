import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import type { EntityManager } from 'typeorm';
import { alertingNotFound, alertingValidation } from '../alerting-exception.js';
import { EndpointsRepository } from '../endpoints/endpoints.repository.js';
import { isSeverity, SEVERITIES } from '../severity.js';
import {
  assertDoesSomething,
  assertNoProblems,
  type FieldProblem,
  mergeAlertRoute,
  type RouteBody,
  type RouteReference,
} from './alert-route-merge.js';
import { alertRouteView, cooldownUntil, routableOf } from './alert-route-view.js';
import type {
  CloneAlertRouteBody,
  CreateAlertRouteBody,
  PreviewAlertRouteBody,
  UpdateAlertRouteBody,
} from './alert-routes.dto.js';
import { MAX_ROUTE_NAME_LENGTH } from './alert-routes.dto.js';
import {
  type AlertRouteFields,
  type AlertRouteRow,
  AlertRoutesRepository,
} from './alert-routes.repository.js';
import { Router } from './routing.js';

/**
 * Alert routes. Rules beyond the spec's table, as built:
 * - `priority` is any 32-bit integer; equal priorities are allowed and evaluate the older route
 *   first (then by id), which is also the list order. `name` is optional (default ""), at most
 *   200 characters; a route holds at most 50 matchers and 100 endpoint ids per request.
 * - Target ids that do not belong to the chosen `in_app_target_type` are ignored and stored
 *   null, so changing the type clears the other target fields. Targets are checked whenever a
 *   request sends any target field (and on create); an account that left the organization
 *   stays on the route until then, and is skipped when notifying.
 * - `notification_endpoint_ids` keeps only ids of this project's endpoints, silently; strings
 *   that are not ids are dropped the same way.
 * - A route must do something (in-app target other than none, a chain, or an enabled attached
 *   endpoint), checked on the merged state of every create, update and clone: 422
 *   `route_does_nothing`.
 * - Clone copies every field and the attached endpoints, named "<name> (copy)", with the
 *   priority after the project's last route (both overridable in the body), and never a
 *   cooldown in progress. The copy is always created disabled: placed before its original (a
 *   lower priority in the body) an enabled copy would take over the original's alerts at once,
 *   so it routes nothing until it is reviewed and enabled with an update.
 * - Preview evaluates `{labels, severity?}` (severity defaults to the severity label) against
 *   the stored routes, without side effects, and explains each route's outcome.
 */
@Injectable()
export class AlertRoutesService {
  constructor(
    private readonly clock: Clock,
    private readonly routes: AlertRoutesRepository,
    private readonly endpoints: EndpointsRepository,
  ) {}

  async list(projectId: string) {
    return (await this.routes.list(projectId)).map(alertRouteView);
  }

  async show(projectId: string, id: string) {
    const row = await this.routes.find(projectId, id);
    if (!row) throw alertingNotFound('Alert route');
    return alertRouteView(row);
  }

  create(projectId: string, body: CreateAlertRouteBody) {
    return this.routes.transaction(async (manager) => {
      const { fields, endpointIds } = await this.merge(manager, projectId, null, body);
      const id = await this.routes.insert(manager, projectId, fields, this.clock.now());
      await this.routes.replaceEndpoints(manager, id, endpointIds ?? []);
      return alertRouteView((await this.routes.find(projectId, id, manager))!);
    });
  }

  update(projectId: string, id: string, body: UpdateAlertRouteBody) {
    return this.routes.transaction(async (manager) => {
      const current = await this.routes.lock(manager, projectId, id);
      if (!current) throw alertingNotFound('Alert route');
      const { fields, endpointIds } = await this.merge(manager, projectId, current, body);
      await this.routes.update(manager, id, fields, this.clock.now());
      if (endpointIds !== undefined) await this.routes.replaceEndpoints(manager, id, endpointIds);
      return alertRouteView((await this.routes.find(projectId, id, manager))!);
    });
  }

  async delete(projectId: string, id: string): Promise<void> {
    if (!(await this.routes.delete(projectId, id))) throw alertingNotFound('Alert route');
  }

  clone(projectId: string, id: string, body: CloneAlertRouteBody) {
    return this.routes.transaction(async (manager) => {
      const source = await this.routes.find(projectId, id, manager);
      if (!source) throw alertingNotFound('Alert route');
      const endpoints = await this.endpointsOf(
        manager,
        projectId,
        source.notification_endpoint_ids,
      );
      const fields: AlertRouteFields = {
        ...pickFields(source),
        name: body.name ?? copyName(source.name),
        priority: body.priority ?? (await this.routes.nextPriority(manager, projectId)),
        enabled: false,
      };
      assertDoesSomething(fields, endpoints);
      const copyId = await this.routes.insert(manager, projectId, fields, this.clock.now());
      await this.routes.replaceEndpoints(
        manager,
        copyId,
        endpoints.map((e) => e.id),
      );
      return alertRouteView((await this.routes.find(projectId, copyId, manager))!);
    });
  }

  async preview(projectId: string, body: PreviewAlertRouteBody) {
    const problems: FieldProblem[] = [];
    const labels: Record<string, string> = {};
    for (const [key, value] of Object.entries(body.labels ?? {})) {
      if (typeof value === 'string') labels[key] = value;
      else problems.push({ field: `labels.${key}`, messages: ['label values must be strings'] });
    }
    const severity = body.severity ?? (isSeverity(labels.severity) ? labels.severity : null);
    if (severity === null && problems.length === 0)
      problems.push({
        field: 'severity',
        messages: [`severity must be one of ${SEVERITIES.join(', ')} (or given as a label)`],
      });
    if (problems.length > 0 || severity === null) throw alertingValidation(problems);

    const rows = await this.routes.list(projectId);
    const evaluations = new Router(rows.map(routableOf)).explain({ labels, severity });
    const winner = evaluations.find((e) => e.outcome === 'matched')?.route.row ?? null;
    return {
      labels,
      severity,
      route: winner ? alertRouteView(winner) : null,
      cooldown_until: winner ? cooldownUntil(winner, this.clock.now()) : null,
      evaluations: evaluations.map((e) => ({
        route_id: e.route.id,
        name: e.route.row.name,
        priority: e.route.priority,
        enabled: e.route.enabled,
        outcome: e.outcome,
        failed_matchers: e.failedMatchers,
      })),
    };
  }

  /**
   * The route's state after applying `body` to `current` (null on create), validated: 422
   * `validation_failed` naming every bad field, then `route_does_nothing`. `endpointIds` is
   * undefined when the attached set stays as it is.
   */
  private async merge(
    manager: EntityManager,
    projectId: string,
    current: AlertRouteRow | null,
    body: RouteBody,
  ): Promise<{ fields: AlertRouteFields; endpointIds: string[] | undefined }> {
    const merged = mergeAlertRoute(current, body);
    const problems = [...merged.problems];
    for (const reference of merged.references)
      if (!(await this.inProject(manager, projectId, reference))) problems.push(reference.problem);
    assertNoProblems(problems);

    const endpoints = await this.endpointsOf(
      manager,
      projectId,
      merged.endpointIds ?? current?.notification_endpoint_ids ?? [],
    );
    assertDoesSomething(merged.fields, endpoints);
    return {
      fields: merged.fields,
      endpointIds: merged.endpointIds === undefined ? undefined : endpoints.map((e) => e.id),
    };
  }

  /** Whether the roster, member or chain the route refers to belongs to the project. */
  private inProject(
    manager: EntityManager,
    projectId: string,
    { kind, id }: RouteReference,
  ): Promise<boolean> {
    if (kind === 'roster') return this.routes.rosterInProject(manager, projectId, id);
    if (kind === 'member') return this.routes.memberOfProject(manager, projectId, id);
    return this.routes.chainInProject(manager, projectId, id);
  }

  /** Read in the caller's transaction, which holds a pooled connection already. */
  private async endpointsOf(
    manager: EntityManager,
    projectId: string,
    ids: readonly string[],
  ): Promise<Array<{ id: string; enabled: boolean }>> {
    return ids.length === 0 ? [] : this.endpoints.findInProject(projectId, ids, manager);
  }
}

/** "<name> (copy)", shortened so the copy's name still fits the name limit. */
function copyName(name: string): string {
  const suffix = ' (copy)';
  return `${name.slice(0, MAX_ROUTE_NAME_LENGTH - suffix.length)}${suffix}`.trim();
}

function pickFields(row: AlertRouteRow): AlertRouteFields {
  return {
    name: row.name,
    priority: row.priority,
    matchers: row.matchers,
    escalation_chain_id: row.escalation_chain_id,
    in_app_target_type: row.in_app_target_type,
    in_app_target_roster_id: row.in_app_target_roster_id,
    in_app_target_member_id: row.in_app_target_member_id,
    in_app_target_role: row.in_app_target_role,
    min_severity_for_notification: row.min_severity_for_notification,
    cooldown_seconds: row.cooldown_seconds,
    bundle_window_seconds: row.bundle_window_seconds,
    enabled: row.enabled,
  };
}
