import { Injectable } from '@nestjs/common';
import { CloudErrorCode, CloudException, isCloudException } from '@platform/cloud-core';
import type { Principal } from '@platform/identity';
import type { OpenStackCall } from '../client/openstack-client.js';
import type { UpstreamObject } from '../compute/servers.service.js';
import { TenantClouds } from '../tenancy/tenant-cloud.js';

/** Octavia's collections below `/v2/lbaas`, each answered under a key of the same name. */
type Collection = 'loadbalancers' | 'listeners' | 'pools' | 'healthmonitors';

/**
 * Load balancers, listeners, pools, members and health monitors of the project, as Octavia
 * answers them (catalog type `load-balancer`).
 */
@Injectable()
export class LoadBalancersService {
  constructor(private readonly clouds: TenantClouds) {}

  loadBalancers(principal: Principal): Promise<UpstreamObject[]> {
    return this.list(principal, 'loadbalancers');
  }

  async loadBalancer(principal: Principal, id: string): Promise<UpstreamObject> {
    return (
      await ownItem(this.get<{ loadbalancer: UpstreamObject }>(principal, `/loadbalancers/${id}`))
    ).loadbalancer;
  }

  listeners(principal: Principal, loadbalancerId?: string): Promise<UpstreamObject[]> {
    return this.list(principal, 'listeners', { loadbalancer_id: loadbalancerId });
  }

  pools(principal: Principal, loadbalancerId?: string): Promise<UpstreamObject[]> {
    return this.list(principal, 'pools', { loadbalancer_id: loadbalancerId });
  }

  async members(principal: Principal, poolId: string): Promise<UpstreamObject[]> {
    return (
      await ownItem(this.get<{ members: UpstreamObject[] }>(principal, `/pools/${poolId}/members`))
    ).members;
  }

  healthMonitors(principal: Principal): Promise<UpstreamObject[]> {
    return this.list(principal, 'healthmonitors');
  }

  private async list(
    principal: Principal,
    collection: Collection,
    query?: OpenStackCall['query'],
  ): Promise<UpstreamObject[]> {
    const answer = await this.get<Record<Collection, UpstreamObject[]>>(
      principal,
      `/${collection}`,
      query,
    );
    return answer[collection];
  }

  private async get<T>(principal: Principal, path: string, query?: OpenStackCall['query']) {
    const cloud = await this.clouds.ofProject(principal);
    return cloud.call<T>('load-balancer', { method: 'GET', path: `/v2/lbaas${path}`, query });
  }
}

/**
 * Octavia finds an id of another project and then refuses it by policy, 403, where Nova,
 * Cinder and Neutron answer 404. With a token scoped to the tenant's own project that 403 on
 * an item means "not this tenant's" (rule 3: a 404), not refused credentials (rule 4's 502):
 * credentials Octavia refused would fail the lists as well, and those keep rule 4.
 */
async function ownItem<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (
      isCloudException(error) &&
      error.code === (CloudErrorCode.ProviderAuthFailed as string) &&
      (error.details as { upstream_status?: unknown } | undefined)?.upstream_status === 403
    ) {
      throw new CloudException(CloudErrorCode.NotFound, 'Resource not found');
    }
    throw error;
  }
}
