import { Injectable } from '@nestjs/common';
import type { Principal } from '@platform/identity';
import type { UpstreamObject } from '../compute/servers.service.js';
import { TenantClouds } from '../tenancy/tenant-cloud.js';

/** The project's volumes, as Cinder answers them. */
@Injectable()
export class VolumesService {
  constructor(private readonly clouds: TenantClouds) {}

  async list(principal: Principal): Promise<UpstreamObject[]> {
    const cloud = await this.clouds.ofProject(principal);
    return (
      await cloud.call<{ volumes: UpstreamObject[] }>('block-storage', {
        method: 'GET',
        path: '/volumes/detail',
      })
    ).volumes;
  }

  async show(principal: Principal, id: string): Promise<UpstreamObject> {
    const cloud = await this.clouds.ofProject(principal);
    return (
      await cloud.call<{ volume: UpstreamObject }>('block-storage', {
        method: 'GET',
        path: `/volumes/${id}`,
      })
    ).volume;
  }
}
