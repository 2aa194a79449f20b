import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CoreErrorCode, CoreException } from '../errors/core-exception.js';
import { Public } from '../http/access.js';
import { RawResponse } from '../http/response-envelope.js';
import { Unversioned } from '../versioning/deprecated.decorator.js';
import { HealthRegistry } from './health.registry.js';

/** Probes for orchestrators; outside the versioned API and the success envelope. */
@ApiTags('health')
@Public()
@Unversioned()
@RawResponse()
@Controller('health')
export class HealthController {
  constructor(private readonly registry: HealthRegistry) {}

  @Get('live')
  @ApiOperation({ summary: 'Liveness: the process serves HTTP' })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: PostgreSQL and Redis answer; 503 otherwise' })
  async ready(): Promise<{ status: 'ok'; checks: Record<string, { status: string }> }> {
    const checks = await this.registry.run();
    const down = Object.entries(checks).filter(([, c]) => c.status === 'down');
    if (down.length > 0) {
      throw new CoreException(
        CoreErrorCode.ServiceUnavailable,
        `Not ready: ${down.map(([name, c]) => `${name} (${c.error})`).join(', ')}`,
        { details: { checks }, retryable: true },
      );
    }
    return { status: 'ok', checks };
  }
}
