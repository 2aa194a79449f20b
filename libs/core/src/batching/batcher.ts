interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export interface BatcherOptions {
  /** Most calls in one batch. */
  maxBatch: number;
  /** At least this long between the starts of two batches; calls arriving meanwhile wait. */
  intervalMs: number;
}

/**
 * Hands concurrent calls to `run` together, one batch at a time: the calls that arrive while a
 * batch is in flight, or within `intervalMs` of its start, go out as the next batch. Under load
 * many jobs share one database round trip; a lone call goes out on the next turn of the event
 * loop. Each caller gets its own result, or the batch's error.
 */
export class Batcher<T, R> {
  private waiting: Waiting<T, R>[] = [];
  private running = false;
  private timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  private lastStart = -Infinity;

  constructor(
    private readonly run: (items: T[]) => Promise<R[]>,
    private readonly options: BatcherOptions = { maxBatch: 500, intervalMs: 0 },
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running || this.timer !== null || this.waiting.length === 0) return;
    const wait = this.lastStart + this.options.intervalMs - performance.now();
    const start = () => {
      this.timer = null;
      this.next();
    };
    this.timer = wait > 0 ? setTimeout(start, wait) : setImmediate(start);
  }

  private next(): void {
    const batch = this.waiting.splice(0, this.options.maxBatch);
    if (batch.length === 0) return;
    this.running = true;
    this.lastStart = performance.now();
    Promise.resolve()
      .then(() => this.run(batch.map((w) => w.item)))
      .then(
        (results) => batch.forEach((w, i) => w.resolve(results[i])),
        (error: unknown) => batch.forEach((w) => w.reject(error)),
      )
      .finally(() => {
        this.running = false;
        this.schedule();
      });
  }
}
