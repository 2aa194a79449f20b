import { Injectable } from '@nestjs/common';
import { MetricsService } from '@platform/core';
import type { Counter, Histogram } from 'prom-client';

export type UpstreamOutcome = 'ok' | 'error' | 'unavailable';

/**
 * Calls to each provider and service on `/metrics`: `upstream_requests_total{provider,
 * service, outcome}` (outcome `error` is a 5xx answer, `unavailable` no answer at all) and
 * the latency histogram `upstream_request_duration_seconds{provider, service}`, so operators
 * see a slow or failing provider before customers report it.
 */
@Injectable()
export class UpstreamMetrics {
  private readonly calls: Counter<'provider' | 'service' | 'outcome'>;
  private readonly latency: Histogram<'provider' | 'service'>;

  constructor(metrics: MetricsService) {
    this.calls = metrics.counter(
      'upstream_requests_total',
      'Calls to cloud providers, by provider, service and outcome',
      ['provider', 'service', 'outcome'],
    );
    this.latency = metrics.histogram(
      'upstream_request_duration_seconds',
      'Latency of calls to cloud providers',
      ['provider', 'service'],
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    );
  }

  observe(provider: string, service: string, outcome: UpstreamOutcome, started: bigint): void {
    this.calls.inc({ provider, service, outcome });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    this.latency.observe({ provider, service }, seconds);
  }
}
