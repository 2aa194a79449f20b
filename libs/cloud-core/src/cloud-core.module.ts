import { Global, Module } from '@nestjs/common';
import { CloudAudit } from './cloud-audit.js';
import { UpstreamMetrics } from './upstream-metrics.js';

/** What every cloud area shares: upstream metrics and audit entries. */
@Global()
@Module({ providers: [UpstreamMetrics, CloudAudit], exports: [UpstreamMetrics, CloudAudit] })
export class CloudCoreModule {}
