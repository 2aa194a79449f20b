import { Writable } from 'node:stream';

/** A parsed JSON log line. */
export type LogLine = Record<string, unknown> & { level?: string; message?: string };

/**
 * A log destination for `JsonLogger.create` (or a test app's `logDestination`) that keeps
 * every line, raw as written and parsed.
 */
export class LogCapture {
  private readonly raw: string[] = [];
  private pending = '';

  readonly stream = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      const parts = (this.pending + chunk.toString()).split('\n');
      this.pending = parts.pop() ?? '';
      this.raw.push(...parts.filter(Boolean));
      done();
    },
  });

  /** Every complete line, exactly as written. */
  text(): string {
    return this.raw.join('\n');
  }

  lines(): LogLine[] {
    return this.raw.map((line) => JSON.parse(line) as LogLine);
  }

  /** Resolves with the first line that matches, polling until `timeoutMs` passed. */
  async waitFor(match: (line: LogLine) => boolean, timeoutMs = 10_000): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines().find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching log line in ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
