import type {
  MembershipResponseDto,
  OrganizationResponseDto,
  ProjectResponseDto,
} from '../identity.openapi.js';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { effectivePermissions } from '../access/permissions.js';
import { Organization, type Project } from '../entities.js';
import { notFound } from '../identity-exception.js';
import { type MembershipView, MembershipsRepository } from './memberships.repository.js';
import { ProjectsRepository } from './projects.repository.js';

export function projectView(project: Project): ProjectResponseDto {
  return {
    id: project.id,
    organization_id: project.organizationId,
    name: project.name,
    created_at: project.createdAt,
  };
}

export function membershipView(m: MembershipView): MembershipResponseDto {
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

@Injectable()
export class OrganizationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly projects: ProjectsRepository,
    private readonly memberships: MembershipsRepository,
  ) {}

  /**
   * A new organization with `adminId` as its admin, in one transaction: how a platform admin
   * (who signed up through no form) gets an organization to work in, or opens one for a
   * customer and invites its first members.
   */
  async createOrganization(
    name: string,
    adminId: string,
    now: Date,
  ): Promise<OrganizationResponseDto> {
    return this.dataSource.transaction(async (manager) => {
      const organization = await manager
        .getRepository(Organization)
        .save({ name, createdAt: now, updatedAt: now });
      await this.memberships.add(manager, organization.id, adminId, 'admin', now);
      return {
        id: organization.id,
        name: organization.name,
        role: 'admin',
        created_at: organization.createdAt,
      };
    });
  }

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
}
