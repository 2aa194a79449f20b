export interface IdleWriterOptions {
  /** Items written by one call of `write`. */
  maxBatch: number;
  /** The longest an item waits while the process stays busy. */
  maxDelayMs: number;
  /** Items held at most; past it, they are written at once (memory stays bounded). */
  maxPending: number;
  /**
   * Whether the same kind of work runs elsewhere (other processes), which holds the items too:
   * asked once this process is idle, and again every `recheckMs` while it answers true. An
   * error counts as not busy.
   */
  busyElsewhere?: () => Promise<boolean>;
  /** How long to wait before asking `busyElsewhere` again; 100 ms unless set. */
  recheckMs?: number;
}

const RECHECK_MS = 100;

/**
 * Writes items in large batches once the work that produces them pauses: while any `busy()`
 * section is open, or the work runs elsewhere (`busyElsewhere`), items wait (up to
 * `maxDelayMs`, or until `maxPending` wait); then everything waiting is written, `maxBatch` to a
 * call, one call at a time. For bookkeeping that must not compete with a burst's deliveries for
 * the database, yet must land soon after.
 */
export class IdleWriter<T> {
  private pending: Array<{ item: T; done: (error?: Error) => void }> = [];
  private active = 0;
  private writing = false;
  private asking = false;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = 0;
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

  /** Whether waiting items must be written whatever runs: held too long, or too many. */
  private overdue(): boolean {
    return (
      Date.now() - this.oldest >= this.options.maxDelayMs ||
      this.pending.length >= this.options.maxPending
    );
  }

  private schedule(): void {
    if (this.writing || this.asking || this.pending.length === 0) return;
    if (this.overdue()) return this.flush();
    if (this.active > 0) return this.wake(this.oldest + this.options.maxDelayMs - Date.now());
    if (!this.options.busyElsewhere) return this.flush();
    this.asking = true;
    void this.options
      .busyElsewhere()
      .catch(() => false)
      .then((elsewhere) => {
        this.asking = false;
        if (!elsewhere && this.active === 0) return this.flush();
        const untilDue = this.oldest + this.options.maxDelayMs - Date.now();
        this.wake(
          this.active > 0 ? untilDue : Math.min(this.options.recheckMs ?? RECHECK_MS, untilDue),
        );
      });
  }

  /** Looks again in `ms`, or sooner if a look is set sooner already. */
  private wake(ms: number): void {
    const at = Date.now() + Math.max(0, ms);
    if (this.timer && this.timerAt <= at) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.schedule();
      },
      Math.max(0, ms),
    );
    this.timer.unref();
  }

  private flush(): void {
    this.clearTimer();
    this.writing = true;
    void this.writeAll().finally(() => {
      this.writing = false;
      // What arrived meanwhile waits for the next pause (or its deadline).
      this.schedule();
    });
  }

  /** Writes batch after batch while this process stays idle (or the items are overdue). */
  private async writeAll(): Promise<void> {
    do {
      const batch = this.pending.splice(0, this.options.maxBatch);
      this.oldest = Date.now();
      const error = await this.write(batch.map((entry) => entry.item)).then(
        () => undefined,
        (failure: unknown) => failure as Error,
      );
      for (const entry of batch) entry.done(error);
    } while (this.pending.length > 0 && (this.active === 0 || this.overdue()));
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
