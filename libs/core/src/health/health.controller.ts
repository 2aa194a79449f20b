import { Controller, Get } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { CoreErrorCode, CoreException } from '../errors/core-exception.js';
import { Public } from '../http/access.js';
import { ApiErrors } from '../openapi/api-responses.js';
import { RawResponse } from '../http/response-envelope.js';
import { Unversioned } from '../versioning/deprecated.decorator.js';
import { HealthRegistry } from './health.registry.js';

export class LivenessResponseDto {
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
}

export class CheckResultDto {
  @ApiProperty({ enum: ['up', 'down'] }) status!: 'up' | 'down';
  @ApiProperty({ required: false, description: 'why the dependency is down' }) error?: string;
}

export class ReadinessResponseDto {
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(CheckResultDto) },
    description: 'by dependency',
  })
  checks!: Record<string, CheckResultDto>;
}

/** Probes for orchestrators; outside the versioned API and the success envelope. */
@ApiTags('health')
@ApiExtraModels(CheckResultDto)
@Public()
@Unversioned()
@RawResponse()
@Controller('health')
export class HealthController {
  constructor(private readonly registry: HealthRegistry) {}

  @Get('live')
  @ApiOperation({ summary: 'Liveness: the process serves HTTP' })
  @ApiOkResponse({ type: LivenessResponseDto, description: 'the process serves HTTP' })
  live(): LivenessResponseDto {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: PostgreSQL and Redis answer; 503 otherwise' })
  @ApiOkResponse({ type: ReadinessResponseDto, description: 'every dependency answers' })
  @ApiErrors([503, 'service_unavailable', 'a dependency is down; `details.checks` says which'])
  async ready(): Promise<ReadinessResponseDto> {
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
