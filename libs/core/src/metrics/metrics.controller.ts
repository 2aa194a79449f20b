import { Controller, Get, Header, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../http/access.js';
import { RawResponse } from '../http/response-envelope.js';
import { Unversioned } from '../versioning/deprecated.decorator.js';
import { MetricsTokenGuard } from './metrics-token.guard.js';
import { MetricsService } from './metrics.service.js';

/** Public to the API's access rules; METRICS_TOKEN, when set, is its only credential. */
@ApiExcludeController()
@Public()
@Unversioned()
@RawResponse()
@UseGuards(MetricsTokenGuard)
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  async scrape(@Res() response: Response): Promise<void> {
    response.setHeader('Content-Type', this.metrics.registry.contentType);
    response.send(await this.metrics.registry.metrics());
  }
}
