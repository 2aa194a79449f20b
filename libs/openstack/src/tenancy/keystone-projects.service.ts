import { Injectable } from '@nestjs/common';
import { CloudErrorCode, CloudException } from '@platform/cloud-core';
import { Clock } from '@platform/core';
import { DataSource } from 'typeorm';
import { OpenStackClient } from '../client/openstack-client.js';
import { KeystoneProjectsRepository, type TenantKind } from './keystone-projects.repository.js';

/** The role the service user gives itself in each tenant project. */
export const MEMBER_ROLE = 'member';

/** The Keystone project's name: `platform-<project uuid>`, or `platform-org-<org uuid>`. */
export const keystoneProjectName = (kind: TenantKind, tenantId: string) =>
  kind === 'project' ? `platform-${tenantId}` : `platform-org-${tenantId}`;

interface KeystoneProject {
  id: string;
  name: string;
}

/**
 * The Keystone project per tenant (4-cloud-resources.md, OpenStack tenancy), created on first
 * use and stored. Race-free: processes provisioning one tenant at once take turns on a
 * PostgreSQL advisory lock, and within a process concurrent first requests share one
 * provisioning. Idempotent upstream too: a Keystone project of that name left by an attempt
 * that failed before storing it is adopted rather than duplicated, and the role assignment is
 * a PUT. Mappings never change, so each is read from PostgreSQL once per process.
 */
@Injectable()
export class KeystoneProjects {
  private readonly known = new Map<string, string>();
  private readonly provisioning = new Map<string, Promise<string>>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: KeystoneProjectsRepository,
    private readonly openstack: OpenStackClient,
    private readonly clock: Clock,
  ) {}

  /** The Keystone project id of the tenant, provisioning it on first use. */
  async idOf(kind: TenantKind, tenantId: string): Promise<string> {
    const key = `${kind}:${tenantId}`;
    const known = this.known.get(key);
    if (known) return known;
    this.openstack.requireConfigured(); // 503 before touching the database
    let pending = this.provisioning.get(key);
    if (!pending) {
      pending = this.findOrProvision(kind, tenantId).finally(() => this.provisioning.delete(key));
      this.provisioning.set(key, pending);
    }
    const id = await pending;
    this.known.set(key, id);
    return id;
  }

  /** The stored Keystone project id, without provisioning (null: none yet). */
  async storedIdOf(kind: TenantKind, tenantId: string): Promise<string | null> {
    return (await this.repository.find(kind, tenantId))?.keystone_project_id ?? null;
  }

  private async findOrProvision(kind: TenantKind, tenantId: string): Promise<string> {
    const stored = await this.repository.find(kind, tenantId);
    if (stored) return stored.keystone_project_id;
    return this.dataSource.transaction(async (manager) => {
      await this.repository.lockTenant(kind, tenantId, manager);
      const again = await this.repository.find(kind, tenantId, manager);
      if (again) return again.keystone_project_id;
      const name = keystoneProjectName(kind, tenantId);
      const project = await this.provision(name);
      await this.repository.insert(
        {
          tenant_kind: kind,
          tenant_id: tenantId,
          keystone_project_id: project.id,
          keystone_project_name: name,
          created_at: this.clock.now(),
        },
        manager,
      );
      return project.id;
    });
  }

  /** Creates (or adopts) the Keystone project and gives the service user the member role. */
  private async provision(name: string): Promise<KeystoneProject> {
    const scope = { domain: true } as const;
    const token = await this.openstack.identity.token(scope);
    const domainId = token.domainId;
    if (!domainId) {
      throw new CloudException(CloudErrorCode.ProviderUnavailable, 'Keystone gave no domain scope');
    }
    const project =
      (await this.findByName(name, domainId)) ??
      (await this.create(name, domainId).catch(async (error: unknown) => {
        // Another platform (or a lost answer) created it in between: adopt it.
        if (error instanceof CloudException && error.code === CloudErrorCode.Conflict) {
          const found = await this.findByName(name, domainId);
          if (found) return found;
        }
        throw error;
      }));
    const role = await this.roleId(MEMBER_ROLE);
    await this.openstack.identityCall(scope, {
      method: 'PUT',
      path: `/projects/${project.id}/users/${token.userId}/roles/${role}`,
    });
    return project;
  }

  private async findByName(name: string, domainId: string): Promise<KeystoneProject | null> {
    const answer = await this.openstack.identityCall<{ projects: KeystoneProject[] }>(
      { domain: true },
      { method: 'GET', path: '/projects', query: { name, domain_id: domainId } },
    );
    return answer.projects.find((p) => p.name === name) ?? null;
  }

  private async create(name: string, domainId: string): Promise<KeystoneProject> {
    const answer = await this.openstack.identityCall<{ project: KeystoneProject }>(
      { domain: true },
      {
        method: 'POST',
        path: '/projects',
        body: {
          project: {
            name,
            domain_id: domainId,
            description: 'Managed by the platform',
            enabled: true,
          },
        },
      },
    );
    return answer.project;
  }

  private async roleId(name: string): Promise<string> {
    const answer = await this.openstack.identityCall<{
      roles: Array<{ id: string; name: string }>;
    }>({ domain: true }, { method: 'GET', path: '/roles', query: { name } });
    const role = answer.roles.find((r) => r.name === name);
    if (!role) {
      throw new CloudException(
        CloudErrorCode.ProviderUnavailable,
        `Keystone has no role named ${name}`,
        { retryable: false },
      );
    }
    return role.id;
  }
}
