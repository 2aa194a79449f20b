import { Module } from '@nestjs/common';
import { CapabilitiesModule } from '@platform/capabilities';
import { CloudCoreModule } from '@platform/cloud-core';
import { IdentityModule } from '@platform/identity';
import { AppsCluster } from './cluster/apps-cluster.js';

/**
 * The apps cluster's client (one per process) and what the routes' guards need: access,
 * capabilities, upstream metrics and audit.
 */
@Module({
  imports: [IdentityModule, CapabilitiesModule, CloudCoreModule],
  providers: [AppsCluster],
  exports: [AppsCluster, IdentityModule, CapabilitiesModule, CloudCoreModule],
})
export class AppsCoreModule {}
