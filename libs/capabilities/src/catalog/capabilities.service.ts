import type {
  FeatureGrantResponseDto,
  FeatureResponseDto,
  KindsConfigurationDto,
} from '../capabilities.openapi.js';
import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import type { Principal } from '@platform/identity';
import { NotifyService } from '@platform/notifications';
import type { EntityManager } from 'typeorm';
import { CapabilitiesErrorCode, CapabilitiesException } from '../capabilities-exception.js';
import {
  CapabilitiesRepository,
  type FeatureRow,
  type ProjectFeatureRow,
} from './capabilities.repository.js';
import { effectiveKinds, type KindSet, kindsBeyond, limitChange, normalizeKinds } from './kinds.js';

export const kindsConfiguration = (kinds: KindSet): KindsConfigurationDto | null =>
  kinds === null ? null : { allowed_kinds: [...kinds] };

export function featureView(feature: FeatureRow, limit: KindSet): FeatureResponseDto {
  return {
    key: feature.key,
    name: feature.name,
    provisioning_tier: feature.provisioning_tier,
    billed: feature.billed,
    available_kinds: feature.available_kinds,
    ceiling_configuration: kindsConfiguration(limit),
  };
}

export function grantView(row: ProjectFeatureRow): FeatureGrantResponseDto {
  const grant = row.granted ? row.grant_kinds : undefined;
  return {
    feature_key: row.key,
    provisioning_tier: row.provisioning_tier,
    approved_configuration: row.granted ? { allowed_kinds: row.grant_kinds } : null,
    ceiling_configuration: kindsConfiguration(row.limit_kinds),
    effective_allowed_kinds: effectiveKinds(grant, row.limit_kinds),
    granted_at: row.granted_at,
    updated_at: row.grant_updated_at,
  };
}

export const actorOf = (principal: Principal) => ({
  id: principal.account.id,
  name: principal.account.name,
});

/**
 * Axis B: Limits per organization, Grants per project, and what is Available (their
 * intersection, read fresh on every check so a narrowed Limit bites at once). Narrowing a
 * Limit changes no Grant row: widening it again restores what the Grant allowed.
 */
@Injectable()
export class CapabilitiesService {
  constructor(
    private readonly clock: Clock,
    private readonly repository: CapabilitiesRepository,
    private readonly notifications: NotifyService,
  ) {}

  async organizationFeatures(organizationId: string) {
    const rows = await this.repository.organizationFeatures(organizationId);
    return rows.map((row) => featureView(row, row.limit_kinds));
  }

  async organizationFeature(organizationId: string, key: string) {
    const [row] = await this.repository.organizationFeatures(organizationId, key);
    if (!row) throw featureNotFound(key);
    return featureView(row, row.limit_kinds);
  }

  /** Sets an organization's Limit (`null`: unbounded); org admins hear of every change. */
  async setLimit(organizationId: string, key: string, kinds: KindSet, principal: Principal) {
    const { feature, before, after } = await this.repository.withOrganizationLocked(
      organizationId,
      async (manager) => {
        const feature = await this.catalogEntry(manager, key);
        const after =
          kinds === null ? null : checkKnown(kinds, feature, 'ceiling_configuration.allowed_kinds');
        const before = await this.repository.limit(manager, organizationId, key);
        await this.repository.setLimit(manager, {
          organizationId,
          key,
          kinds: after,
          actorId: principal.account.id,
          at: this.clock.now(),
        });
        return { feature, before, after };
      },
    );
    await this.announceLimitChange(organizationId, feature, before, after, principal);
    return featureView(feature, after);
  }

  async projectGrants(projectId: string) {
    return (await this.repository.projectFeatures(projectId)).map(grantView);
  }

  /**
   * Sets a project's Grant. Kinds beyond the Limit that stands are refused with
   * `exceeds_ceiling` and nothing changes; provisioned features need a platform admin.
   */
  async setGrant(
    organizationId: string,
    projectId: string,
    key: string,
    kinds: KindSet,
    principal: Principal,
  ) {
    await this.repository.withOrganizationLocked(organizationId, async (manager) => {
      const feature = await this.catalogEntry(manager, key);
      const granted =
        kinds === null ? null : checkKnown(kinds, feature, 'approved_configuration.allowed_kinds');
      if (feature.provisioning_tier === 'provisioned' && !principal.account.isPlatformAdmin) {
        throw platformAdminRequired(`${key} is provisioned by the platform`);
      }
      const limit = await this.repository.limit(manager, organizationId, key);
      const beyond = kindsBeyond(granted, limit);
      if (beyond.length > 0) {
        throw new CapabilitiesException(
          CapabilitiesErrorCode.ExceedsCeiling,
          `The organization's limit for ${key} does not include ${beyond.join(', ')}`,
          {
            details: {
              feature_key: key,
              kinds: beyond,
              ceiling_configuration: kindsConfiguration(limit),
            },
          },
        );
      }
      await this.repository.setGrant(manager, {
        projectId,
        key,
        kinds: granted,
        actorId: principal.account.id,
        at: this.clock.now(),
      });
    });
    return this.projectGrant(projectId, key);
  }

  async revokeGrant(projectId: string, key: string, principal: Principal): Promise<void> {
    const [row] = await this.repository.projectFeatures(projectId, key);
    if (!row) throw featureNotFound(key);
    if (row.provisioning_tier === 'provisioned' && !principal.account.isPlatformAdmin) {
      throw platformAdminRequired(`${key} is provisioned by the platform`);
    }
    await this.repository.deleteGrant(projectId, key);
  }

  async projectGrant(projectId: string, key: string) {
    const [row] = await this.repository.projectFeatures(projectId, key);
    if (!row) throw featureNotFound(key);
    return grantView(row);
  }

  /** What the project may use of a feature right now (`null`: unbounded). */
  async available(projectId: string, key: string): Promise<KindSet> {
    const [row] = await this.repository.projectFeatures(projectId, key);
    if (!row) throw new Error(`unknown feature ${key}`);
    return effectiveKinds(row.granted ? row.grant_kinds : undefined, row.limit_kinds);
  }

  async catalogEntry(manager: EntityManager, key: string): Promise<FeatureRow> {
    const feature = await this.repository.feature(key, manager);
    if (!feature) throw featureNotFound(key);
    return feature;
  }

  /** Tells the organization's admins that a Limit moved; an unchanged Limit says nothing. */
  async announceLimitChange(
    organizationId: string,
    feature: FeatureRow,
    before: KindSet,
    after: KindSet,
    principal: Principal,
  ): Promise<void> {
    const { removed, added } = limitChange(before, after, feature.available_kinds);
    if (removed.length === 0 && added.length === 0 && (before === null) === (after === null))
      return;
    const eventType =
      added.length === 0
        ? 'limit_narrowed'
        : removed.length === 0
          ? 'limit_widened'
          : 'limit_changed';
    await this.notifications.notify({
      category: 'capability_update',
      eventType,
      organizationId,
      recipients: await this.repository.organizationAdmins(organizationId),
      payload: {
        feature_key: feature.key,
        ceiling_configuration: kindsConfiguration(after),
        previous_ceiling_configuration: kindsConfiguration(before),
        removed_kinds: removed,
        added_kinds: added,
        actor: actorOf(principal),
      },
      email: {
        subject: `The ${feature.name} limit of your organization changed`,
        text:
          `A platform administrator changed what projects of your organization may use of ${feature.name}.\n` +
          (removed.length ? `No longer available: ${removed.join(', ')}\n` : '') +
          (added.length ? `Now available: ${added.join(', ')}\n` : '') +
          'Existing grants are kept; kinds outside the limit stop being available until it is widened again.',
      },
    });
  }
}

/** Kinds the feature knows, distinct and in catalog order; unknown ones answer 422. */
export function checkKnown(kinds: readonly string[], feature: FeatureRow, field: string): string[] {
  const unknown = kinds.filter((kind) => !feature.available_kinds.includes(kind));
  if (unknown.length > 0) {
    const message = `unknown kinds for ${feature.key}: ${unknown.join(', ')} (known: ${feature.available_kinds.join(', ')})`;
    throw new CapabilitiesException(
      CapabilitiesErrorCode.ValidationFailed,
      `Validation failed: ${message}`,
      {
        details: { fields: [{ field, messages: [message] }] },
      },
    );
  }
  return normalizeKinds(kinds, feature.available_kinds);
}

export const featureNotFound = (key: string) =>
  new CapabilitiesException(CapabilitiesErrorCode.NotFound, `Feature ${key} not found`);

export const platformAdminRequired = (why: string) =>
  new CapabilitiesException(
    CapabilitiesErrorCode.PlatformAdminRequired,
    `Only a platform admin may do this: ${why}`,
  );
