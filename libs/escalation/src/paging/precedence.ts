/**
 * Lets one kind of work in this process go ahead of another: `after()` waits while any `first()`
 * work runs (and a moment longer, so the gap between two jobs does not count as the end), but
 * never longer than its own limit, so the second kind is delayed, not starved.
 */
export class Precedence {
  private active = 0;
  private waiters: Array<() => void> = [];
  private settling: NodeJS.Timeout | null = null;

  constructor(private readonly quietMs = 20) {}

  async first<R>(work: () => Promise<R>): Promise<R> {
    this.active += 1;
    if (this.settling) clearTimeout(this.settling);
    this.settling = null;
    try {
      return await work();
    } finally {
      this.active -= 1;
      if (this.active === 0) {
        this.settling = setTimeout(() => {
          this.settling = null;
          if (this.active === 0) this.wake();
        }, this.quietMs);
        this.settling.unref();
      }
    }
  }

  /** Resolves once no `first()` work has run for a moment, or after `maxWaitMs`. */
  after(maxWaitMs: number): Promise<void> {
    if (this.active === 0 && !this.settling) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, maxWaitMs);
      timer.unref();
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
