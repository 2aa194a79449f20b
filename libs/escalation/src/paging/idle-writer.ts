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

/** Items added together: settled once the last of them is written (rejected if any write fails). */
interface Group {
  left: number;
  error?: Error;
  done: (error?: Error) => void;
}

/**
 * Writes items in large batches once the work that produces them pauses: while any `busy()`
 * section is open, or the work runs elsewhere (`busyElsewhere`), items wait (up to
 * `maxDelayMs`, or until `maxPending` wait); then everything waiting is written, `maxBatch` to a
 * call, one call at a time. For bookkeeping that must not compete with a burst's deliveries for
 * the database, yet must land soon after. Items wait in two flat arrays (the item, its group),
 * one promise per `add`: a burst holds tens of thousands of them across many scavenges, and an
 * object or promise per item was copied by every one of those.
 */
export class IdleWriter<T> {
  private items: T[] = [];
  private groups: Group[] = [];
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

  /** Resolves once the items are written; rejects with a write's error. */
  add(items: readonly T[]): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      if (this.items.length === 0) this.oldest = Date.now();
      const group: Group = {
        left: items.length,
        done: (error) => (error ? reject(error) : resolve()),
      };
      for (const item of items) {
        this.items.push(item);
        this.groups.push(group);
      }
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
      this.items.length >= this.options.maxPending
    );
  }

  private schedule(): void {
    if (this.writing || this.asking || this.items.length === 0) return;
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
      const batch = this.items.splice(0, this.options.maxBatch);
      const groups = this.groups.splice(0, batch.length);
      this.oldest = Date.now();
      const error = await this.write(batch).then(
        () => undefined,
        (failure: unknown) => failure as Error,
      );
      for (const group of groups) {
        if (error) group.error ??= error;
        if (--group.left === 0) group.done(group.error);
      }
    } while (this.items.length > 0 && (this.active === 0 || this.overdue()));
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
