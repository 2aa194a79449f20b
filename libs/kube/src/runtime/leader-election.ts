import type { LoggerService } from '@nestjs/common';
import type { Clock } from '@platform/core';
import { apiVersionOf, CoreKinds, type KubeObject } from './kinds.js';
import { isKubeApiError } from './kube-api-error.js';
import type { KubeClient } from './kube-client.js';

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export type Lease = KubeObject<LeaseSpec>;

export interface LeaderElectionOptions {
  client: KubeClient;
  clock: Clock;
  logger: LoggerService;
  namespace: string;
  name: string;
  identity: string;
  /** How long others wait, after the lease last changed, before taking it over. */
  leaseDurationSeconds?: number;
  /** How long the leader keeps leading while its renewals fail. */
  renewDeadlineSeconds?: number;
  /** Real time between attempts to acquire or renew. */
  retryPeriodMs?: number;
  onStartedLeading(): void;
  onStoppedLeading(): Promise<void>;
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go does it: a candidate takes
 * the lease when it is free, released, or unchanged for leaseDurationSeconds by its own clock
 * (not the holder's timestamps, so clock skew between nodes does not matter); the leader
 * renews it every retry period, steps down at once when another holder appears and after
 * renewDeadlineSeconds of failed renewals, and releases it when stopped.
 */
export class LeaderElector {
  private readonly leaseDurationSeconds: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private leading = false;
  private holdsLease = false;
  private lastRenewMs = 0;
  private observed: { resourceVersion: string; atMs: number } | undefined;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly options: LeaderElectionOptions) {
    this.leaseDurationSeconds = options.leaseDurationSeconds ?? 15;
    this.renewDeadlineMs = (options.renewDeadlineSeconds ?? 10) * 1000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2000;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops competing; a leader stops leading first, then releases the lease. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    if (this.leading) {
      this.leading = false;
      await this.options.onStoppedLeading();
    }
    if (this.holdsLease) await this.release();
  }

  private async run(): Promise<void> {
    while (this.running) {
      await this.attempt();
      if (!this.running) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.retryPeriodMs);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.wake = done;
      });
    }
  }

  private async attempt(): Promise<void> {
    let outcome: 'held' | 'taken' | 'failed';
    try {
      outcome = (await this.tryAcquireOrRenew()) ? 'held' : 'taken';
    } catch (error) {
      outcome = 'failed';
      this.options.logger.warn(
        `lease ${this.describe()}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const now = this.options.clock.nowMs();
    if (outcome === 'held') {
      this.holdsLease = true;
      this.lastRenewMs = now;
      if (!this.leading && this.running) {
        this.leading = true;
        this.options.logger.log(`${this.options.identity} became the leader (${this.describe()})`);
        this.options.onStartedLeading();
      }
      return;
    }
    if (outcome === 'taken') this.holdsLease = false;
    if (!this.leading) return;
    if (outcome === 'taken' || now - this.lastRenewMs > this.renewDeadlineMs) {
      this.leading = false;
      this.options.logger.warn(`${this.options.identity} lost the lease ${this.describe()}`);
      await this.options.onStoppedLeading();
    }
  }

  /** True when this candidate holds the lease afterwards. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const { client, namespace, name, identity } = this.options;
    const now = this.options.clock.now();
    const lease = await client.get<Lease>(CoreKinds.Lease, namespace, name);
    if (!lease) {
      try {
        const created = await client.create<Lease>(CoreKinds.Lease, {
          apiVersion: apiVersionOf(CoreKinds.Lease),
          kind: CoreKinds.Lease.kind,
          metadata: { name, namespace },
          spec: this.record(now, {}),
        });
        this.observe(created);
        return true;
      } catch (error) {
        if (isKubeApiError(error, 409)) return false;
        throw error;
      }
    }
    this.observe(lease);
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    if (holder !== '' && holder !== identity) {
      const durationMs = (spec.leaseDurationSeconds ?? this.leaseDurationSeconds) * 1000;
      if (this.observed!.atMs + durationMs > now.getTime()) return false;
      this.options.logger.log(`lease ${this.describe()} of ${holder} expired; taking it over`);
    }
    try {
      const updated = await client.replace<Lease>(CoreKinds.Lease, {
        ...lease,
        spec: this.record(now, spec),
      });
      this.observe(updated);
      return true;
    } catch (error) {
      if (isKubeApiError(error, 409)) return false;
      throw error;
    }
  }

  private record(now: Date, current: LeaseSpec): LeaseSpec {
    const renewing = current.holderIdentity === this.options.identity;
    return {
      holderIdentity: this.options.identity,
      leaseDurationSeconds: this.leaseDurationSeconds,
      acquireTime: renewing && current.acquireTime ? current.acquireTime : microTime(now),
      renewTime: microTime(now),
      leaseTransitions: (current.leaseTransitions ?? 0) + (renewing || !current.renewTime ? 0 : 1),
    };
  }

  /** Remembers when (by this replica's clock) the lease last changed. */
  private observe(lease: Lease): void {
    const resourceVersion = lease.metadata.resourceVersion ?? '';
    if (this.observed?.resourceVersion === resourceVersion) return;
    this.observed = { resourceVersion, atMs: this.options.clock.nowMs() };
  }

  /** Leaves the lease free so another replica takes over without waiting for it to expire. */
  private async release(): Promise<void> {
    const { client, namespace, name, identity } = this.options;
    this.holdsLease = false;
    try {
      const lease = await client.get<Lease>(CoreKinds.Lease, namespace, name);
      if (!lease || lease.spec?.holderIdentity !== identity) return;
      const now = microTime(this.options.clock.now());
      await client.replace<Lease>(CoreKinds.Lease, {
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
        },
      });
      this.options.logger.log(`${identity} released the lease ${this.describe()}`);
    } catch (error) {
      this.options.logger.warn(
        `releasing the lease ${this.describe()} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  private describe(): string {
    return `${this.options.namespace}/${this.options.name}`;
  }
}

/** RFC 3339 with microseconds, the format of a Lease's MicroTime fields. */
function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
