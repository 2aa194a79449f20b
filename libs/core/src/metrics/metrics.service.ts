import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus registry. Each application instance owns one (rather than the
 * library's global) so several apps in one process, as in tests, do not collide.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests served, by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency, by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * The registry's counter of that name, registered on first use: providers that several
   * modules instantiate share one.
   */
  counter<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
  ): Counter<L> {
    return (
      (this.registry.getSingleMetric(name) as Counter<L> | undefined) ??
      new Counter<L>({ name, help, labelNames, registers: [this.registry] })
    );
  }

  /** The registry's gauge of that name, registered on first use (see `counter`). */
  gauge<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
  ): Gauge<L> {
    return (
      (this.registry.getSingleMetric(name) as Gauge<L> | undefined) ??
      new Gauge<L>({ name, help, labelNames, registers: [this.registry] })
    );
  }

  /** The registry's histogram of that name, registered on first use (see `counter`). */
  histogram<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    buckets?: number[],
  ): Histogram<L> {
    return (
      (this.registry.getSingleMetric(name) as Histogram<L> | undefined) ??
      new Histogram<L>({ name, help, labelNames, buckets, registers: [this.registry] })
    );
  }

  /**
   * Delivery attempts to people and receivers: `deliveries_total{channel, outcome}`, channel
   * a delivery channel's name (DELIVERY_CHANNELS of the notifications library); outcome sent, or
   * failed (an attempt that failed, which its job may try again).
   */
  countDelivery(channel: string, outcome: 'sent' | 'failed', count = 1): void {
    if (count <= 0) return;
    this.counter('deliveries_total', 'Deliveries per channel and outcome', [
      'channel',
      'outcome',
    ] as const).inc({ channel, outcome }, count);
  }

  /**
   * How long a delivery took to reach its provider (sent): from the instant it was due (an
   * escalation page) or created (a notification's e-mail, text or call; a webhook event), by
   * channel and source, so operators can alert on a slow pipeline.
   */
  observeDeliveryLatency(
    channel: string,
    source: 'escalation' | 'notification' | 'webhook',
    from: Date | number,
    at: Date | number = Date.now(),
  ): void {
    const seconds = Math.max(0, (Number(at) - Number(from)) / 1000);
    this.histogram(
      'delivery_latency_seconds',
      'Delivery latency, due or created to sent, per channel and source',
      ['channel', 'source'] as const,
      [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    ).observe({ channel, source }, seconds);
  }

  observeHttp(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }
}
