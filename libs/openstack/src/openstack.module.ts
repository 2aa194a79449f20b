import { Module } from '@nestjs/common';
import { CapabilitiesModule } from '@platform/capabilities';
import { CloudCoreModule } from '@platform/cloud-core';
import { IdentityModule } from '@platform/identity';
import { OpenStackClient } from './client/openstack-client.js';
import { ServersController } from './compute/servers.controller.js';
import { ServersService } from './compute/servers.service.js';
import { KeystoneProjectsRepository } from './tenancy/keystone-projects.repository.js';
import { KeystoneProjects } from './tenancy/keystone-projects.service.js';
import { TenantClouds } from './tenancy/tenant-cloud.js';

/**
 * Compute, network, volumes, load balancers, DNS and VPN over OpenStack
 * (4-cloud-resources.md): each platform project acts in its own Keystone project with a token
 * scoped to it, and every route answers the upstream object itself.
 */
@Module({
  imports: [IdentityModule, CapabilitiesModule, CloudCoreModule],
  controllers: [ServersController],
  providers: [
    OpenStackClient,
    KeystoneProjectsRepository,
    KeystoneProjects,
    TenantClouds,
    ServersService,
  ],
  exports: [KeystoneProjects],
})
export class OpenStackModule {}
