import { Controller, Get, Res } from '@nestjs/common';
import { MetricsService } from '@platform/core';
import type { Response } from 'express';

/** Kubernetes probes and Prometheus metrics of an operator process. */
@Controller()
export class OperatorProbesController {
  constructor(private readonly metrics: MetricsService) {}

  @Get('healthz')
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  readyz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('metrics')
  async scrape(@Res() response: Response): Promise<void> {
    response.setHeader('Content-Type', this.metrics.registry.contentType);
    response.send(await this.metrics.registry.metrics());
  }
}
