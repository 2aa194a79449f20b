import { Controller, Get, Header, HttpStatus, Res } from '@nestjs/common';
import { type CheckResult, HealthRegistry } from '@platform/core';
import type { Response } from 'express';

/**
 * The operator's probes under the names Kubernetes operators usually serve (`/healthz`,
 * `/readyz`, as in the chart); `/health/live`, `/health/ready` and `/metrics` come from the
 * ProbesModule every process shares.
 */
@Controller()
export class OperatorProbesController {
  constructor(private readonly health: HealthRegistry) {}

  @Get('healthz')
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** 503 until every check passes (the operator runtime's: its informers have synced). */
  @Get('readyz')
  @Header('Cache-Control', 'no-store')
  async readyz(
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ status: 'ok' | 'unavailable'; checks: Record<string, CheckResult> }> {
    const checks = await this.health.run();
    const ready = Object.values(checks).every((check) => check.status === 'up');
    response.status(ready ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE);
    return { status: ready ? 'ok' : 'unavailable', checks };
  }
}
