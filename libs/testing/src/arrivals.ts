/**
 * What a fake protocol peer received, in arrival order, with a way to wait for a matching
 * arrival instead of sleeping.
 */
export class Arrivals<T> {
  readonly items: T[] = [];
  /** Items an expectation took (see `take`); the rest are unexpected so far. */
  private readonly taken = new Set<T>();
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

  /**
   * Resolves with the first matching item no expectation took yet (already received or
   * arriving), and takes it: a second expectation needs a second item.
   */
  async take(predicate: (item: T) => boolean, timeoutMs = 5000): Promise<T> {
    const item = await this.waitFor(
      (candidate) => !this.taken.has(candidate) && predicate(candidate),
      timeoutMs,
    );
    this.taken.add(item);
    return item;
  }

  /** The items no expectation took. */
  untaken(): T[] {
    return this.items.filter((item) => !this.taken.has(item));
  }

  clear(): void {
    this.items.length = 0;
    this.taken.clear();
  }
}

/** Whether `text` contains every fragment (a string, or a pattern it matches). */
export function containsAll(text: string, fragments: ReadonlyArray<string | RegExp>): boolean {
  return fragments.every((f) => (typeof f === 'string' ? text.includes(f) : f.test(text)));
}
