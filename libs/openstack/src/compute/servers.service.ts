import { Injectable } from '@nestjs/common';
import { CloudAudit } from '@platform/cloud-core';
import { Clock } from '@platform/core';
import type { Principal } from '@platform/identity';
import { TenantClouds } from '../tenancy/tenant-cloud.js';
import { novaKeypairName, withTenantKeyName } from './keypair-names.js';
import { ServerWatchRepository } from './server-watch.repository.js';
import type { CreateServerBody } from './servers.dto.js';

export type UpstreamObject = Record<string, unknown> & { id: string };

/** Servers, images and flavors of the project's cloud, as Nova and Glance answer them. */
@Injectable()
export class ServersService {
  constructor(
    private readonly clouds: TenantClouds,
    private readonly audit: CloudAudit,
    private readonly watch: ServerWatchRepository,
    private readonly clock: Clock,
  ) {}

  async list(principal: Principal): Promise<UpstreamObject[]> {
    const cloud = await this.clouds.ofProject(principal);
    return (
      await cloud.call<{ servers: UpstreamObject[] }>('compute', {
        method: 'GET',
        path: '/servers/detail',
      })
    ).servers.map((server) => withTenantKeyName(cloud, server));
  }

  async show(principal: Principal, id: string): Promise<UpstreamObject> {
    const cloud = await this.clouds.ofProject(principal);
    const { server } = await cloud.call<{ server: UpstreamObject }>('compute', {
      method: 'GET',
      path: `/servers/${id}`,
    });
    return withTenantKeyName(cloud, server);
  }

  /**
   * Nova answers a create with the id only: the server is read back, as it stands (BUILD). The
   * worker watches it from here until it settles, to tell the organization when it is ACTIVE.
   */
  async create(principal: Principal, body: CreateServerBody): Promise<UpstreamObject> {
    const { project_id: _project, ...server } = body;
    const cloud = await this.clouds.ofProject(principal);
    const created = await cloud.call<{ server: UpstreamObject }>('compute', {
      method: 'POST',
      path: '/servers',
      // The keypair is the tenant's own: Nova knows it under the tenant's prefix.
      body: {
        server: server.key_name
          ? { ...server, key_name: novaKeypairName(cloud, server.key_name) }
          : server,
      },
    });
    await this.watch.record(
      created.server.id,
      principal.projectId!,
      principal.organizationId!,
      this.clock.now(),
    );
    await this.audit.record(
      principal,
      'servers.create',
      { type: 'server', id: created.server.id },
      { name: body.name },
    );
    const { server: current } = await cloud.call<{ server: UpstreamObject }>('compute', {
      method: 'GET',
      path: `/servers/${created.server.id}`,
    });
    return withTenantKeyName(cloud, current);
  }

  async delete(principal: Principal, id: string): Promise<void> {
    const cloud = await this.clouds.ofProject(principal);
    await cloud.call('compute', { method: 'DELETE', path: `/servers/${id}` });
    await this.audit.record(principal, 'servers.delete', { type: 'server', id });
  }

  async images(principal: Principal): Promise<UpstreamObject[]> {
    const cloud = await this.clouds.ofProject(principal);
    return (
      await cloud.call<{ images: UpstreamObject[] }>('image', { method: 'GET', path: '/v2/images' })
    ).images;
  }

  async flavors(principal: Principal): Promise<UpstreamObject[]> {
    const cloud = await this.clouds.ofProject(principal);
    return (
      await cloud.call<{ flavors: UpstreamObject[] }>('compute', {
        method: 'GET',
        path: '/flavors/detail',
      })
    ).flavors;
  }
}
