import { Injectable } from '@nestjs/common';
import type { Principal } from '@platform/identity';
import type { ServiceType } from '@platform/openstack-client';
import { type OpenStackCall, OpenStackClient } from '../client/openstack-client.js';
import { KeystoneProjects } from './keystone-projects.service.js';

/** Calls into one tenant's Keystone project, with a token scoped to it and nothing else. */
export class TenantCloud {
  constructor(
    private readonly client: OpenStackClient,
    readonly keystoneProjectId: string,
  ) {}

  call<T = unknown>(service: ServiceType, call: OpenStackCall): Promise<T> {
    return this.client.call<T>({ projectId: this.keystoneProjectId }, service, call);
  }
}

/**
 * The cloud of the request's tenant (rule 3): a platform project's Keystone project, or an
 * organization's for its VPN. Never an admin token for a customer call, so another tenant's
 * ids are 404 upstream and here.
 */
@Injectable()
export class TenantClouds {
  constructor(
    private readonly client: OpenStackClient,
    private readonly projects: KeystoneProjects,
  ) {}

  async ofProject(principal: Principal): Promise<TenantCloud> {
    if (!principal.projectId) throw new Error('a project route names its project');
    return new TenantCloud(this.client, await this.projects.idOf('project', principal.projectId));
  }

  async ofOrganization(principal: Principal): Promise<TenantCloud> {
    if (!principal.organizationId) throw new Error('an organization route names its organization');
    return new TenantCloud(
      this.client,
      await this.projects.idOf('organization', principal.organizationId),
    );
  }
}
