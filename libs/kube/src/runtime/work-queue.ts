import type { Clock } from '@platform/core';

export interface WorkQueueOptions {
  /** How many keys are processed at the same time. */
  workers: number;
  clock: Clock;
  /** Runs one key. A throw retries it with backoff; `requeueAfterMs` runs it again later. */
  process(key: string): Promise<{ requeueAfterMs?: number } | void>;
  /** First retry delay (doubles per consecutive failure of a key). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Up to this fraction of a retry delay is added at random, so failing keys spread out. */
  jitter?: number;
  /**
   * Delayed keys are due by the injected clock; a real timer looks at most this long before
   * checking the clock again, so a clock moved by a test is noticed.
   */
  clockCheckMs?: number;
  onFailure?(key: string, error: unknown, attempt: number, retryInMs: number): void;
  onDepthChange?(depth: number): void;
}

/**
 * Keys of objects to reconcile. A key queued many times is processed once; a key is never
 * processed twice at the same time, and a key queued while it is being processed runs again
 * afterwards. Failures retry with capped exponential backoff.
 */
export class WorkQueue {
  private readonly ready = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly delayed = new Map<string, number>();
  private readonly failures = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly jitter: number;
  private readonly clockCheckMs: number;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly options: WorkQueueOptions) {
    this.baseDelayMs = options.baseDelayMs ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 5 * 60_000;
    this.jitter = options.jitter ?? 0;
    this.clockCheckMs = options.clockCheckMs ?? 1000;
  }

  /** Keys waiting to be processed now. */
  get depth(): number {
    return this.ready.size;
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Consecutive failures of a key (0 after a success). */
  failuresOf(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** When a delayed key is due (clock milliseconds), if it is waiting. */
  dueAt(key: string): number | undefined {
    return this.delayed.get(key);
  }

  add(key: string): void {
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.ready.has(key)) return;
    this.ready.add(key);
    this.depthChanged();
    this.pump();
  }

  /** Queues the key after a delay; an earlier pending time for the key wins. */
  addAfter(key: string, delayMs: number): void {
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const due = this.options.clock.nowMs() + delayMs;
    const pending = this.delayed.get(key);
    if (pending !== undefined && pending <= due) return;
    this.delayed.set(key, due);
    this.arm();
  }

  /** Begins processing (again); queued keys stay queued. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.arm();
    this.pump();
  }

  /** Stops taking keys and waits for those being processed. Queued keys stay queued. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** Forgets every queued, delayed and failed key (keys being processed finish). */
  clear(): void {
    this.ready.clear();
    this.dirty.clear();
    this.delayed.clear();
    this.failures.clear();
    clearTimeout(this.timer);
    this.timer = undefined;
    this.depthChanged();
  }

  /** Resolves when nothing is queued now or being processed (delayed keys may wait). */
  idle(): Promise<void> {
    if (this.ready.size === 0 && this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (this.running && this.inFlight.size < this.options.workers && this.ready.size > 0) {
      const key = this.ready.values().next().value as string;
      this.ready.delete(key);
      this.processing.add(key);
      this.depthChanged();
      const run = this.run(key).finally(() => {
        this.inFlight.delete(run);
        this.processing.delete(key);
        if (this.dirty.delete(key)) this.add(key);
        this.pump();
        this.notifyIdle();
      });
      this.inFlight.add(run);
    }
  }

  private async run(key: string): Promise<void> {
    try {
      const result = await this.options.process(key);
      this.failures.delete(key);
      if (result?.requeueAfterMs !== undefined) this.addAfter(key, result.requeueAfterMs);
    } catch (error) {
      const attempt = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, attempt);
      const delay = this.backoff(attempt);
      this.options.onFailure?.(key, error, attempt, delay);
      this.addAfter(key, delay);
    }
  }

  /** base * 2^(attempt-1), capped, plus optional jitter (still capped). */
  backoff(attempt: number): number {
    const exponential = Math.min(
      this.baseDelayMs * 2 ** Math.min(attempt - 1, 52),
      this.maxDelayMs,
    );
    const withJitter = exponential * (1 + this.jitter * Math.random());
    return Math.min(Math.round(withJitter), this.maxDelayMs);
  }

  /** Sets the timer for the earliest delayed key, waking at least every clockCheckMs. */
  private arm(): void {
    if (!this.running || this.delayed.size === 0) return;
    clearTimeout(this.timer);
    let earliest = Infinity;
    for (const due of this.delayed.values()) earliest = Math.min(earliest, due);
    const wait = Math.max(0, Math.min(earliest - this.options.clock.nowMs(), this.clockCheckMs));
    this.timer = setTimeout(() => this.promoteDue(), wait);
    this.timer.unref();
  }

  private promoteDue(): void {
    this.timer = undefined;
    const now = this.options.clock.nowMs();
    for (const [key, due] of [...this.delayed]) {
      if (due > now) continue;
      this.delayed.delete(key);
      this.add(key);
    }
    this.arm();
  }

  private depthChanged(): void {
    this.options.onDepthChange?.(this.ready.size);
  }

  private notifyIdle(): void {
    if (this.ready.size > 0 || this.processing.size > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
