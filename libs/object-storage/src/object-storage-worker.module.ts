import { Module } from '@nestjs/common';
import { UPSTREAM_TIMEOUT_MS } from '@platform/cloud-core';
import { NotifyModule } from '@platform/notifications';
import { RgwAdminOps } from './client/rgw-admin-ops.js';
import { RGW_CALL_TIMEOUT_MS, RgwClient } from './client/rgw-client.js';
import { UsageCheckProcessor } from './usage/usage-check.processor.js';
import { UsageLevelsRepository } from './usage/usage-levels.repository.js';

/** Worker side of object storage: the periodic usage check against each user's quota. */
@Module({
  imports: [NotifyModule],
  providers: [
    { provide: RGW_CALL_TIMEOUT_MS, useValue: UPSTREAM_TIMEOUT_MS },
    RgwClient,
    RgwAdminOps,
    UsageLevelsRepository,
    UsageCheckProcessor,
  ],
})
export class ObjectStorageWorkerModule {}
