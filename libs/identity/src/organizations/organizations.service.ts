import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import {
  CATEGORIES,
  effectivePermissions,
  LEVELS,
  type PermissionOverrides,
} from '../access/permissions.js';
import type { Project } from '../entities.js';
import { IdentityErrorCode, IdentityException, notFound } from '../identity-exception.js';
import { type MembershipView, MembershipsRepository } from './memberships.repository.js';
import type { UpdateMembershipBody } from './organizations.dto.js';
import { ProjectsRepository } from './projects.repository.js';

export function projectView(project: Project) {
  return {
    id: project.id,
    organization_id: project.organizationId,
    name: project.name,
    created_at: project.createdAt,
  };
}

export function membershipView(m: MembershipView) {
  return {
    id: m.id,
    organization_id: m.organization_id,
    account_id: m.account_id,
    login: m.login,
    name: m.name,
    role: m.role,
    permissions: m.permissions,
    effective_permissions: effectivePermissions(m.role, m.permissions),
    created_at: m.created_at,
  };
}

function validateOverrides(overrides: Record<string, unknown>): PermissionOverrides {
  const problems: Array<{ field: string; messages: string[] }> = [];
  for (const [category, levels] of Object.entries(overrides)) {
    if (!(CATEGORIES as readonly string[]).includes(category)) {
      problems.push({
        field: `permissions.${category}`,
        messages: [`unknown permission category "${category}"`],
      });
    } else if (
      !Array.isArray(levels) ||
      levels.some((l) => !(LEVELS as readonly unknown[]).includes(l))
    ) {
      problems.push({
        field: `permissions.${category}`,
        messages: [`levels must be a list of ${LEVELS.join(', ')}`],
      });
    }
  }
  if (problems.length > 0) {
    throw new IdentityException(
      IdentityErrorCode.ValidationFailed,
      `Validation failed: ${problems.map((p) => p.messages.join(', ')).join('; ')}`,
      { details: { fields: problems } },
    );
  }
  return Object.fromEntries(
    Object.entries(overrides).map(([c, l]) => [c, [...new Set(l as string[])]]),
  );
}

@Injectable()
export class OrganizationsService {
  constructor(
    private readonly clock: Clock,
    private readonly projects: ProjectsRepository,
    private readonly memberships: MembershipsRepository,
  ) {}

  async project(organizationId: string, id: string) {
    const project = await this.projects.findInOrganization(id, organizationId);
    if (!project) throw notFound('Project');
    return projectView(project);
  }

  async membership(organizationId: string, id: string) {
    const membership = await this.memberships.findInOrganization(id, organizationId);
    if (!membership) throw notFound('Membership');
    return membershipView(membership);
  }

  async updateMembership(organizationId: string, id: string, body: UpdateMembershipBody) {
    const permissions = body.permissions ? validateOverrides(body.permissions) : undefined;
    await this.memberships.update(
      id,
      organizationId,
      { role: body.role, permissions },
      this.clock.now(),
    );
    return this.membership(organizationId, id);
  }
}
