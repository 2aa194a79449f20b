import type { MetricsService } from '@platform/core';
import type { Counter, Gauge } from 'prom-client';
import { INSTANCE_PHASES } from '../crds/groupware-instance.js';

type Labels = 'namespace' | 'name';

/**
 * Per GroupwareInstance: its phase, one series per phase set to 1 for the current one (so
 * `groupware_instance_phase{phase="Failed"} == 1` alerts), and the occ Jobs that failed.
 */
export class InstanceMetrics {
  private readonly phase: Gauge<Labels | 'phase'>;
  private readonly occFailures: Counter<Labels>;

  constructor(metrics: MetricsService) {
    this.phase = metrics.gauge(
      'groupware_instance_phase',
      'Phase of a GroupwareInstance: 1 for its current phase, 0 for the others',
      ['namespace', 'name', 'phase'] as const,
    );
    this.occFailures = metrics.counter(
      'groupware_instance_occ_job_failures_total',
      'Failed occ Jobs applying the apps of a GroupwareInstance, counted as a new attempt replaces them',
      ['namespace', 'name'] as const,
    );
  }

  recordPhase(namespace: string, name: string, current: string): void {
    for (const phase of INSTANCE_PHASES) {
      this.phase.set({ namespace, name, phase }, phase === current ? 1 : 0);
    }
  }

  countOccFailure(namespace: string, name: string): void {
    this.occFailures.inc({ namespace, name });
  }

  forget(namespace: string, name: string): void {
    for (const phase of INSTANCE_PHASES) this.phase.remove({ namespace, name, phase });
    this.occFailures.remove({ namespace, name });
  }
}
