import { Worker } from 'node:worker_threads';

/**
 * An SMTP server (in a worker thread) that accepts everything and only counts messages and
 * their distinct recipients: bodies are drained, never parsed. Reported every 20 ms.
 */
export class SmtpCounter {
  count = 0;
  recipients = 0;
  private target = Infinity;
  private reached: (() => void) | null = null;

  private constructor(
    private readonly worker: Worker,
    readonly port: number,
  ) {
    worker.on('message', (message: { count?: number; recipients?: number }) => {
      if (typeof message.count !== 'number') return;
      this.count = message.count;
      this.recipients = message.recipients ?? 0;
      this.check();
    });
  }

  static async start(): Promise<SmtpCounter> {
    const worker = new Worker(new URL('./smtp-counter-thread.js', import.meta.url));
    const port = await new Promise<number>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('message', (message: { port: number }) => resolve(message.port));
    });
    return new SmtpCounter(worker, port);
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Resolves once `total` messages have been received. */
  waitFor(total: number): Promise<void> {
    this.target = total;
    return new Promise((resolve) => {
      this.reached = resolve;
      this.check();
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private check(): void {
    if (this.count >= this.target && this.reached) {
      const reached = this.reached;
      this.reached = null;
      reached();
    }
  }
}
