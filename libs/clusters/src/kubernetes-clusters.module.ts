import { Module } from '@nestjs/common';
import { CloudProfilesModule } from './cloud-profiles/cloud-profiles.module.js';
import { ClustersModule } from './clusters/clusters.module.js';
import { GardenCoreModule } from './garden-core.module.js';

/**
 * Kubernetes clusters over Gardener (4-cloud-resources.md): each platform project has a
 * Gardener project in the garden cluster at GARDEN_KUBECONFIG, a cluster is a Shoot there and
 * the cloud profiles are the garden's. One module per area.
 */
@Module({
  imports: [GardenCoreModule, ClustersModule, CloudProfilesModule],
  exports: [GardenCoreModule],
})
export class KubernetesClustersModule {}
