import { Injectable } from '@nestjs/common';
import { CloudErrorCode, CloudException } from '@platform/cloud-core';
import { GardenCluster } from '../garden/garden-cluster.js';
import { type CloudProfile, GardenerKinds } from '../garden/gardener-kinds.js';
import { type CloudProfileDto, cloudProfileView } from './cloud-profile.view.js';

/**
 * The garden's CloudProfiles. They are cluster-wide and every project may choose from all of
 * them, so nothing here depends on the caller's project beyond the route's checks.
 */
@Injectable()
export class CloudProfilesService {
  constructor(private readonly garden: GardenCluster) {}

  async list(): Promise<CloudProfileDto[]> {
    const { items } = await this.garden.run('cloudprofiles', (kube) =>
      kube.list<CloudProfile>(GardenerKinds.CloudProfile),
    );
    return items.map(cloudProfileView).sort((a, b) => a.name.localeCompare(b.name));
  }

  async show(name: string): Promise<CloudProfileDto> {
    const profile = await this.find(name);
    if (!profile) throw new CloudException(CloudErrorCode.NotFound, 'Resource not found');
    return cloudProfileView(profile);
  }

  /** The profile itself, or undefined when the garden has none of that name. */
  find(name: string): Promise<CloudProfile | undefined> {
    return this.garden.run('cloudprofiles', (kube) =>
      kube.get<CloudProfile>(GardenerKinds.CloudProfile, undefined, name),
    );
  }
}
