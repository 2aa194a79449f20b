import { Injectable } from '@nestjs/common';
import { MetricsService } from '@platform/core';
import { Counter, Gauge, Histogram } from 'prom-client';

/** The operator runtime's Prometheus metrics, in the process's registry. */
@Injectable()
export class OperatorMetrics {
  readonly reconciles: Counter<'kind' | 'result'>;
  readonly reconcileErrors: Counter<'kind'>;
  readonly reconcileDuration: Histogram<'kind'>;
  readonly queueDepth: Gauge<'kind'>;
  readonly leader: Gauge;

  constructor(metrics: MetricsService) {
    const registers = [metrics.registry];
    this.reconciles = new Counter({
      name: 'operator_reconcile_total',
      help: 'Reconciles run, by kind and result (success or error)',
      labelNames: ['kind', 'result'] as const,
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'operator_reconcile_errors_total',
      help: 'Reconciles that failed and were retried with backoff, by kind',
      labelNames: ['kind'] as const,
      registers,
    });
    this.reconcileDuration = new Histogram({
      name: 'operator_reconcile_duration_seconds',
      help: 'Time one reconcile took, by kind',
      labelNames: ['kind'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.queueDepth = new Gauge({
      name: 'operator_workqueue_depth',
      help: 'Objects waiting to be reconciled, by kind',
      labelNames: ['kind'] as const,
      registers,
    });
    this.leader = new Gauge({
      name: 'operator_leader',
      help: '1 while this replica holds the leader lease and reconciles, else 0',
      registers,
    });
    this.leader.set(0);
  }
}
