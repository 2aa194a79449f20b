/**
 * What another thread reported arriving (e-mails at an SMTP server, frames at sockets), in
 * arrival order, with a way to wait for a condition over it instead of polling.
 */
export class ArrivalLog<T> {
  readonly items: T[] = [];
  private waiters: Array<() => void> = [];

  add(batch: readonly T[]): void {
    for (const item of batch) this.items.push(item);
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves true once `done(items)` holds, false when `deadline` (epoch ms) passes first. */
  async until(done: (items: readonly T[]) => boolean, deadline: number): Promise<boolean> {
    for (;;) {
      if (done(this.items)) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /**
   * Resolves true once `count` items matching `matches` arrived after the first `from`, false
   * when `deadline` (epoch ms) passes first. Each item is looked at once.
   */
  untilCount(from: number, matches: (item: T) => boolean, count: number, deadline: number) {
    let seen = 0;
    let checked = from;
    return this.until((items) => {
      for (; checked < items.length; checked += 1) if (matches(items[checked])) seen += 1;
      return seen >= count;
    }, deadline);
  }
}
