export interface IdleWriterOptions {
  /** Items written by one call of `write`. */
  maxBatch: number;
  /** The longest an item waits while the process stays busy. */
  maxDelayMs: number;
  /** Items held at most; past it, they are written at once (memory stays bounded). */
  maxPending: number;
}

/**
 * Writes items in large batches once the work that produces them pauses: while any `busy()`
 * section is open, items wait (up to `maxDelayMs`, or until `maxPending` wait); when the last
 * one closes, everything waiting is written, `maxBatch` to a call, one call at a time. For
 * bookkeeping that must not compete with a burst's deliveries for the database, yet must land
 * soon after.
 */
export class IdleWriter<T> {
  private pending: Array<{ item: T; done: (error?: Error) => void }> = [];
  private active = 0;
  private writing = false;
  private timer: NodeJS.Timeout | null = null;
  private oldest = 0;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly options: IdleWriterOptions,
  ) {}

  /** Resolves once the item is written; rejects with the write's error. */
  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.pending.length === 0) this.oldest = Date.now();
      this.pending.push({ item, done: (error) => (error ? reject(error) : resolve()) });
      this.schedule();
    });
  }

  /** Runs `work` as a busy section: waiting items are held until every section is over. */
  async busy<R>(work: () => Promise<R>): Promise<R> {
    this.active += 1;
    try {
      return await work();
    } finally {
      this.active -= 1;
      this.schedule();
    }
  }

  /** Whether waiting items should be written now. */
  private ripe(): boolean {
    return (
      this.pending.length > 0 &&
      (this.active === 0 ||
        Date.now() - this.oldest >= this.options.maxDelayMs ||
        this.pending.length >= this.options.maxPending)
    );
  }

  private schedule(): void {
    if (this.writing || this.pending.length === 0) return;
    if (this.ripe()) {
      this.clearTimer();
      void this.flush();
    } else if (!this.timer) {
      const due = this.oldest + this.options.maxDelayMs - Date.now();
      this.timer = setTimeout(() => {
        this.timer = null;
        this.schedule();
      }, due);
      this.timer.unref();
    }
  }

  private async flush(): Promise<void> {
    this.writing = true;
    try {
      while (this.ripe()) {
        const batch = this.pending.splice(0, this.options.maxBatch);
        this.oldest = Date.now();
        const error = await this.write(batch.map((entry) => entry.item)).then(
          () => undefined,
          (failure: unknown) => failure as Error,
        );
        for (const entry of batch) entry.done(error);
      }
    } finally {
      this.writing = false;
    }
    // What arrived meanwhile waits for the next pause (or its deadline).
    this.schedule();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
