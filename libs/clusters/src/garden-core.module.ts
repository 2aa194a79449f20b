import { Module } from '@nestjs/common';
import { CapabilitiesModule } from '@platform/capabilities';
import { CloudCoreModule, UPSTREAM_TIMEOUT_MS } from '@platform/cloud-core';
import { IdentityModule } from '@platform/identity';
import { CloudProfilesService } from './cloud-profiles/cloud-profiles.service.js';
import { GARDEN_CALL_TIMEOUT_MS, GardenCluster } from './garden/garden-cluster.js';
import {
  DEFAULT_PROJECT_READY_TIMEOUT_MS,
  GARDEN_PROJECT_READY_TIMEOUT_MS,
  GardenProjects,
} from './tenancy/garden-projects.service.js';

/**
 * The garden cluster and the tenancy every /k8s area uses: one client per process, one
 * Gardener project per platform project. Area modules import it with the access and capability
 * modules their routes' guards need.
 */
@Module({
  imports: [IdentityModule, CapabilitiesModule, CloudCoreModule],
  providers: [
    { provide: GARDEN_CALL_TIMEOUT_MS, useValue: UPSTREAM_TIMEOUT_MS },
    { provide: GARDEN_PROJECT_READY_TIMEOUT_MS, useValue: DEFAULT_PROJECT_READY_TIMEOUT_MS },
    GardenCluster,
    GardenProjects,
    CloudProfilesService,
  ],
  exports: [
    GardenCluster,
    GardenProjects,
    CloudProfilesService,
    IdentityModule,
    CapabilitiesModule,
    CloudCoreModule,
  ],
})
export class GardenCoreModule {}
