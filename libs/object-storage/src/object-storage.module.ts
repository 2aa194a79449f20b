import { Module } from '@nestjs/common';
import { CapabilitiesModule } from '@platform/capabilities';
import { CloudCoreModule, UPSTREAM_TIMEOUT_MS } from '@platform/cloud-core';
import { IdentityModule } from '@platform/identity';
import { RgwBucketsController } from './buckets/rgw-buckets.controller.js';
import { RgwBucketsService } from './buckets/rgw-buckets.service.js';
import { RgwAdminOps } from './client/rgw-admin-ops.js';
import { RGW_CALL_TIMEOUT_MS, RgwClient } from './client/rgw-client.js';
import { RgwUsersController } from './users/rgw-users.controller.js';
import { RgwUsersRepository } from './users/rgw-users.repository.js';
import { RgwUsersService } from './users/rgw-users.service.js';

/**
 * Object storage over Ceph RGW (4-cloud-resources.md): users of each project in their
 * organization's RGW tenant, their quotas, keys and buckets, through the Admin Ops API and S3.
 */
@Module({
  imports: [IdentityModule, CapabilitiesModule, CloudCoreModule],
  controllers: [RgwUsersController, RgwBucketsController],
  providers: [
    { provide: RGW_CALL_TIMEOUT_MS, useValue: UPSTREAM_TIMEOUT_MS },
    RgwClient,
    RgwAdminOps,
    RgwUsersRepository,
    RgwUsersService,
    RgwBucketsService,
  ],
})
export class ObjectStorageModule {}
