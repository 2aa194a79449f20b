import { Controller, Get, Header, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../http/access.js';
import { ApiErrors } from '../openapi/api-responses.js';
import { SECURITY_SCHEMES } from '../openapi/openapi.js';
import { RawResponse } from '../http/response-envelope.js';
import { Unversioned } from '../versioning/deprecated.decorator.js';
import { MetricsTokenGuard } from './metrics-token.guard.js';
import { MetricsService } from './metrics.service.js';

/** Public to the API's access rules; METRICS_TOKEN, when set, is its only credential. */
@ApiTags('health')
@Public()
@Unversioned()
@RawResponse()
@UseGuards(MetricsTokenGuard)
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Prometheus metrics' })
  @ApiOkResponse({
    description: 'the Prometheus text exposition format',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  @ApiErrors([401, 'unauthorized', 'METRICS_TOKEN is set and the request does not present it'])
  // The token only when METRICS_TOKEN is set; the empty requirement says it may be absent.
  @ApiSecurity(SECURITY_SCHEMES.metricsToken)
  @ApiSecurity({})
  async scrape(@Res() response: Response): Promise<void> {
    response.setHeader('Content-Type', this.metrics.registry.contentType);
    response.send(await this.metrics.registry.metrics());
  }
}
