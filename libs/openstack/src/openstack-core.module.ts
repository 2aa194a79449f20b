import { Module } from '@nestjs/common';
import { CapabilitiesModule } from '@platform/capabilities';
import { CloudCoreModule, UPSTREAM_TIMEOUT_MS } from '@platform/cloud-core';
import { IdentityModule } from '@platform/identity';
import { OPENSTACK_CALL_TIMEOUT_MS, OpenStackClient } from './client/openstack-client.js';
import { KeystoneProjectsRepository } from './tenancy/keystone-projects.repository.js';
import { KeystoneProjects } from './tenancy/keystone-projects.service.js';
import { OpenStackProjectSection } from './tenancy/project-detail-section.js';
import { TenantClouds } from './tenancy/tenant-cloud.js';

/**
 * The client and the tenancy every OpenStack area uses: one Keystone token cache per process,
 * one Keystone project per tenant. Area modules import it with the access and capability
 * modules their routes' guards need. The per-call deadline is a provider here, so a test can
 * override it (a token provided nowhere cannot be).
 */
@Module({
  imports: [IdentityModule, CapabilitiesModule, CloudCoreModule],
  providers: [
    { provide: OPENSTACK_CALL_TIMEOUT_MS, useValue: UPSTREAM_TIMEOUT_MS },
    OpenStackClient,
    KeystoneProjectsRepository,
    KeystoneProjects,
    TenantClouds,
    OpenStackProjectSection,
  ],
  exports: [
    OPENSTACK_CALL_TIMEOUT_MS,
    OpenStackClient,
    KeystoneProjects,
    TenantClouds,
    IdentityModule,
    CapabilitiesModule,
    CloudCoreModule,
  ],
})
export class OpenStackCoreModule {}
