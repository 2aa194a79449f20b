import { hostname } from 'node:os';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock, HealthRegistry } from '@platform/core';
import { Controller } from './controller.js';
import { InformerGroup } from './informer-group.js';
import { type KindRef, kindId } from './kinds.js';
import { KubeClient } from './kube-client.js';
import { LeaderElector } from './leader-election.js';
import { OperatorMetrics } from './operator-metrics.js';
import type { Reconciler } from './reconciler.js';

/** Timings of the runtime; the defaults suit production, tests shorten them. */
export interface OperatorTiming {
  leaseDurationSeconds: number;
  renewDeadlineSeconds: number;
  /** Real time between lease attempts (acquire or renew). */
  leaseRetryMs: number;
  /** First retry delay of a failed reconcile; doubles per failure up to retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Fraction of a retry delay added at random (0 = none). */
  retryJitter: number;
  /** Longest real wait before the injected clock is looked at again (delayed keys, resync). */
  clockCheckMs: number;
  /** First delay after a failed list or watch. */
  watchRetryMs: number;
}

export const DEFAULT_OPERATOR_TIMING: OperatorTiming = {
  leaseDurationSeconds: 15,
  renewDeadlineSeconds: 10,
  leaseRetryMs: 2000,
  retryBaseMs: 1000,
  retryMaxMs: 5 * 60_000,
  retryJitter: 0,
  clockCheckMs: 1000,
  watchRetryMs: 1000,
};

export interface OperatorRuntimeSettings {
  name: string;
  timing?: Partial<OperatorTiming>;
}

export const OPERATOR_RUNTIME_SETTINGS = Symbol('OPERATOR_RUNTIME_SETTINGS');
export const RECONCILERS = Symbol('RECONCILERS');

/**
 * The operator process: informers on every replica (so /readyz and a take-over do not wait
 * for a cold cache), and reconciles only on the replica that holds the leader lease.
 */
@Injectable()
export class OperatorRuntime implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly controllers: Controller[];
  private readonly groups = new Map<string, InformerGroup>();
  private readonly elector: LeaderElector | undefined;
  private readonly timing: OperatorTiming;
  private readonly logger: Logger;
  private readonly resyncPeriodMs: number;
  private leading = false;
  private started = false;
  private stopping = false;
  private activation: Promise<void> = Promise.resolve();
  private nextResyncMs = 0;
  private resyncTimer: NodeJS.Timeout | undefined;
  private signalStopped!: () => void;
  private readonly stopped = new Promise<void>((resolve) => (this.signalStopped = resolve));

  constructor(
    @Inject(OPERATOR_RUNTIME_SETTINGS) settings: OperatorRuntimeSettings,
    @Inject(RECONCILERS) reconcilers: Reconciler[],
    @Inject(APP_CONFIG) config: AppConfig,
    readonly client: KubeClient,
    private readonly clock: Clock,
    private readonly metrics: OperatorMetrics,
    health: HealthRegistry,
  ) {
    this.timing = { ...DEFAULT_OPERATOR_TIMING, ...settings.timing };
    this.logger = new Logger(settings.name);
    const operator = config.operator;
    this.resyncPeriodMs = operator.resyncPeriodSeconds * 1000;
    const informerGroup = (kind: KindRef, labelSelector?: string) => {
      const id = `${kindId(kind)}|${labelSelector ?? ''}`;
      let group = this.groups.get(id);
      if (!group) {
        group = new InformerGroup(client, kind, {
          namespaces: operator.watchNamespaces,
          labelSelector,
          logger: this.logger,
          retryDelayMs: this.timing.watchRetryMs,
        });
        this.groups.set(id, group);
      }
      return group;
    };
    this.controllers = reconcilers.map(
      (reconciler) =>
        new Controller(
          reconciler,
          informerGroup(reconciler.kind),
          (reconciler.owns ?? []).map((kind) =>
            informerGroup(kind, ownsSelectorOf(reconciler, kind)),
          ),
          {
            client,
            clock,
            logger: new Logger(`${settings.name}:${reconciler.kind.kind}`),
            metrics,
            workers: operator.reconcileWorkers,
            retryBaseMs: this.timing.retryBaseMs,
            retryMaxMs: this.timing.retryMaxMs,
            retryJitter: this.timing.retryJitter,
            clockCheckMs: this.timing.clockCheckMs,
          },
        ),
    );
    if (operator.leaderElection && this.controllers.length > 0) {
      this.elector = new LeaderElector({
        client,
        clock,
        logger: this.logger,
        namespace: operator.leaderElectionNamespace ?? client.currentNamespace() ?? 'default',
        name: operator.leaseName ?? `${settings.name}-leader`,
        identity: operator.podName ?? `${hostname()}_${process.pid}`,
        leaseDurationSeconds: this.timing.leaseDurationSeconds,
        renewDeadlineSeconds: this.timing.renewDeadlineSeconds,
        retryPeriodMs: this.timing.leaseRetryMs,
        onStartedLeading: () => this.startLeading(),
        onStoppedLeading: () => this.stopLeading(),
      });
    }
    health.register('informers', async () => {
      const waiting = [...this.groups.values()].filter((group) => !group.hasSynced);
      if (waiting.length > 0) {
        throw new Error(`not synced: ${waiting.map((group) => group.kind.plural).join(', ')}`);
      }
    });
  }

  /** True while this replica reconciles (it holds the lease, or leader election is off). */
  get isLeader(): boolean {
    return this.leading;
  }

  /** True once every informer has its first list. */
  get hasSynced(): boolean {
    return [...this.groups.values()].every((group) => group.hasSynced);
  }

  async whenSynced(): Promise<void> {
    await Promise.all([...this.groups.values()].map((group) => group.whenSynced()));
  }

  /** Resolves when no controller has queued or running work (delayed retries may wait). */
  async idle(): Promise<void> {
    await Promise.all(this.controllers.map((controller) => controller.queue.idle()));
  }

  onApplicationBootstrap(): void {
    this.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** Starts the informers and competes for the lease; returns at once (see /readyz). */
  start(): void {
    if (this.started || this.controllers.length === 0) return;
    this.started = true;
    for (const group of this.groups.values()) group.start();
    if (this.elector) this.elector.start();
    else this.startLeading();
    this.resyncTimer = setInterval(() => this.resyncWhenDue(), this.timing.clockCheckMs);
    this.resyncTimer.unref();
  }

  /** Stops the watches, lets running reconciles finish, then releases the lease. */
  async stop(): Promise<void> {
    if (!this.started || this.stopping) return;
    this.stopping = true;
    this.signalStopped();
    clearInterval(this.resyncTimer);
    await Promise.all([...this.groups.values()].map((group) => group.stop()));
    await Promise.all(this.controllers.map((controller) => controller.queue.stop()));
    if (this.elector) await this.elector.stop();
    else await this.stopLeading();
    this.logger.log('operator runtime stopped');
  }

  private startLeading(): void {
    this.leading = true;
    this.metrics.leader.set(1);
    this.activation = this.activateWhenSynced();
  }

  private async activateWhenSynced(): Promise<void> {
    await Promise.race([this.whenSynced(), this.stopped]);
    if (!this.leading || this.stopping) return;
    this.nextResyncMs = this.clock.nowMs() + this.resyncPeriodMs;
    for (const controller of this.controllers) controller.activate();
    this.logger.log(
      `reconciling ${this.controllers.map((c) => c.reconciler.kind.kind).join(', ')}`,
    );
  }

  private async stopLeading(): Promise<void> {
    this.leading = false;
    this.metrics.leader.set(0);
    await this.activation;
    await Promise.all(this.controllers.map((controller) => controller.deactivate()));
  }

  private resyncWhenDue(): void {
    if (!this.leading || this.nextResyncMs === 0) return;
    const now = this.clock.nowMs();
    if (now < this.nextResyncMs) return;
    this.nextResyncMs = now + this.resyncPeriodMs;
    for (const controller of this.controllers) controller.resync();
  }
}

function ownsSelectorOf(reconciler: Reconciler, kind: KindRef): string | undefined {
  const selector = reconciler.ownsSelector;
  return typeof selector === 'function' ? selector.call(reconciler, kind) : selector;
}
