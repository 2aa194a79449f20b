/**
 * What a fake protocol peer received, in arrival order, with a way to wait for a matching
 * arrival instead of sleeping.
 */
export class Arrivals<T> {
  readonly items: T[] = [];
  private waiters: Array<() => void> = [];

  constructor(private readonly noun: string) {}

  push(item: T): void {
    this.items.push(item);
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves with the first item (already received or arriving) that matches. */
  async waitFor(predicate: (item: T) => boolean = () => true, timeoutMs = 5000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.items.find(predicate);
      if (found) return found;
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new Error(
          `no matching ${this.noun} within ${timeoutMs} ms (${this.items.length} received)`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  clear(): void {
    this.items.length = 0;
  }
}
