import type { FeatureRequestResponseDto } from '../capabilities.openapi.js';
import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { type Principal, ProjectsRepository } from '@platform/identity';
import { NotifyService } from '@platform/notifications';
import type { EntityManager } from 'typeorm';
import { CapabilitiesErrorCode, CapabilitiesException } from '../capabilities-exception.js';
import { CapabilitiesRepository, type FeatureRow } from '../catalog/capabilities.repository.js';
import {
  actorOf,
  CapabilitiesService,
  checkKnown,
  kindsConfiguration,
  platformAdminRequired,
} from '../catalog/capabilities.service.js';
import { type KindSet, kindsBeyond } from '../catalog/kinds.js';
import {
  type FeatureRequestRow,
  FeatureRequestsRepository,
  type FeatureRequestStatus,
} from './feature-requests.repository.js';

export function featureRequestView(row: FeatureRequestRow): FeatureRequestResponseDto {
  return {
    id: row.id,
    project_id: row.project_id,
    feature_key: row.feature_key,
    requested_configuration: { allowed_kinds: row.requested_kinds },
    message: row.message,
    status: row.status,
    requested_by: row.requested_by ? { id: row.requested_by, name: row.requested_by_name } : null,
    decided_by: row.decided_by ? { id: row.decided_by, name: row.decided_by_name } : null,
    decided_at: row.decided_at,
    decision_note: row.decision_note,
    created_at: row.created_at,
  };
}

/** `a ∪ b`, where `null` (everything) absorbs. */
const union = (a: KindSet | undefined, b: KindSet): KindSet =>
  a === undefined ? b : a === null || b === null ? null : [...new Set([...a, ...b])];

/**
 * Feature requests: any project member asks; an org admin approves or rejects a self-service
 * request within the Limit (effective at once); a provisioned feature, or a request beyond the
 * Limit, needs a platform admin, whose approval widens the Limit as far as the grant needs.
 */
@Injectable()
export class FeatureRequestsService {
  constructor(
    private readonly clock: Clock,
    private readonly requests: FeatureRequestsRepository,
    private readonly repository: CapabilitiesRepository,
    private readonly capabilities: CapabilitiesService,
    private readonly projects: ProjectsRepository,
    private readonly notifications: NotifyService,
  ) {}

  async create(
    projectId: string,
    body: { featureKey: string; kinds: KindSet; message: string | null },
    principal: Principal,
  ) {
    const feature = await this.repository.feature(body.featureKey);
    if (!feature) {
      const message = `unknown feature "${body.featureKey}"`;
      throw new CapabilitiesException(
        CapabilitiesErrorCode.ValidationFailed,
        `Validation failed: ${message}`,
        { details: { fields: [{ field: 'feature_key', messages: [message] }] } },
      );
    }
    const kinds =
      body.kinds === null
        ? null
        : checkKnown(body.kinds, feature, 'requested_configuration.allowed_kinds');
    const row = await this.requests.create({
      projectId,
      featureKey: feature.key,
      kinds,
      message: body.message,
      requestedBy: principal.account.id,
      at: this.clock.now(),
    });
    await this.announce(row, 'requested', principal, {
      recipients: await this.repository.organizationAdmins(principal.organizationId!),
    });
    return featureRequestView(row);
  }

  async list(projectId: string, status?: FeatureRequestStatus) {
    return (await this.requests.list(projectId, status)).map(featureRequestView);
  }

  async show(projectId: string, id: string) {
    const row = await this.requests.find(id, projectId);
    if (!row) throw requestNotFound();
    return featureRequestView(row);
  }

  async approve(
    projectId: string,
    id: string,
    body: { kinds?: KindSet; note: string | null },
    principal: Principal,
  ) {
    const organizationId = principal.organizationId!;
    const outcome = await this.repository.withOrganizationLocked(
      organizationId,
      async (manager) => {
        const request = await this.pending(manager, id, projectId);
        const feature = await this.capabilities.catalogEntry(manager, request.feature_key);
        const kinds =
          body.kinds === undefined
            ? request.requested_kinds
            : body.kinds === null
              ? null
              : checkKnown(body.kinds, feature, 'approved_configuration.allowed_kinds');
        const limit = await this.repository.limit(manager, organizationId, feature.key);
        const beyond = exceedsLimit(kinds, limit);
        this.authorizeDecision(feature, beyond, principal);
        const now = this.clock.now();
        const widened = beyond ? union(limit, kinds ?? null) : limit;
        if (beyond) {
          await this.repository.setLimit(manager, {
            organizationId,
            key: feature.key,
            kinds: widened,
            actorId: principal.account.id,
            at: now,
          });
        }
        const current = await this.repository.grant(manager, projectId, feature.key);
        await this.repository.setGrant(manager, {
          projectId,
          key: feature.key,
          kinds: union(current, kinds),
          actorId: principal.account.id,
          at: now,
        });
        await this.requests.decide(manager, {
          id,
          status: 'approved',
          decidedBy: principal.account.id,
          at: now,
          note: body.note,
        });
        return { feature, limit, widened, beyond };
      },
    );

    if (outcome.beyond) {
      await this.capabilities.announceLimitChange(
        organizationId,
        outcome.feature,
        outcome.limit,
        outcome.widened,
        principal,
      );
    }
    const row = (await this.requests.find(id, projectId))!;
    await this.announce(row, 'approved', principal, {
      recipients: [
        ...(row.requested_by ? [row.requested_by] : []),
        ...(await this.repository.organizationAdmins(organizationId)),
      ],
    });
    return featureRequestView(row);
  }

  async reject(projectId: string, id: string, reason: string | null, principal: Principal) {
    const organizationId = principal.organizationId!;
    await this.repository.withOrganizationLocked(organizationId, async (manager) => {
      const request = await this.pending(manager, id, projectId);
      const feature = await this.capabilities.catalogEntry(manager, request.feature_key);
      const limit = await this.repository.limit(manager, organizationId, feature.key);
      this.authorizeDecision(feature, exceedsLimit(request.requested_kinds, limit), principal);
      await this.requests.decide(manager, {
        id,
        status: 'rejected',
        decidedBy: principal.account.id,
        at: this.clock.now(),
        note: reason,
      });
    });
    const row = (await this.requests.find(id, projectId))!;
    await this.announce(row, 'rejected', principal, {
      recipients: row.requested_by ? [row.requested_by] : [],
      extra: { reason },
    });
    return featureRequestView(row);
  }

  private async pending(manager: EntityManager, id: string, projectId: string) {
    if (!(await this.requests.lock(manager, id, projectId))) throw requestNotFound();
    const request = (await this.requests.find(id, projectId, manager))!;
    if (request.status !== 'pending') {
      throw new CapabilitiesException(
        CapabilitiesErrorCode.RequestNotPending,
        `The request is already ${request.status}`,
      );
    }
    return request;
  }

  /** Org admins decide self-service requests within the Limit; everything else is the platform's. */
  private authorizeDecision(feature: FeatureRow, beyondLimit: boolean, principal: Principal): void {
    if (principal.account.isPlatformAdmin) return;
    if (feature.provisioning_tier === 'provisioned') {
      throw platformAdminRequired(`${feature.key} is provisioned by the platform`);
    }
    if (beyondLimit) {
      throw platformAdminRequired(
        `the request goes beyond the organization's limit for ${feature.key}`,
      );
    }
  }

  private async announce(
    row: FeatureRequestRow,
    eventType: 'requested' | 'approved' | 'rejected',
    principal: Principal,
    options: { recipients: string[]; extra?: Record<string, unknown> },
  ): Promise<void> {
    const project = await this.projects.findById(row.project_id);
    const verb = { requested: 'asks for', approved: 'approved', rejected: 'rejected' }[eventType];
    await this.notifications.notify({
      category: 'feature_request',
      eventType,
      organizationId: project?.organizationId ?? principal.organizationId,
      recipients: options.recipients,
      payload: {
        feature_key: row.feature_key,
        project_id: row.project_id,
        project_name: project?.name ?? null,
        request_id: row.id,
        actor: actorOf(principal),
        ...(eventType === 'requested'
          ? { requested_configuration: kindsConfiguration(row.requested_kinds) }
          : {}),
        ...options.extra,
      },
      email: {
        subject: `Feature request for ${row.feature_key} ${eventType}`,
        text: `${principal.account.name} ${verb} ${row.feature_key} for project ${project?.name ?? row.project_id}.`,
      },
    });
  }
}

/**
 * Whether granting `kinds` needs more than the Limit allows. Asking for the whole feature
 * (null) goes beyond any bounded Limit that leaves out some of the feature's kinds only when
 * nothing at all would be Available, i.e. the Limit is empty.
 */
function exceedsLimit(kinds: KindSet, limit: KindSet): boolean {
  if (limit === null) return false;
  if (kinds === null) return limit.length === 0;
  return kindsBeyond(kinds, limit).length > 0;
}

const requestNotFound = () =>
  new CapabilitiesException(CapabilitiesErrorCode.NotFound, 'Feature request not found');
