import { createInterface, type Interface } from 'node:readline';
import { Writable } from 'node:stream';
import type { CliIo } from './command.js';
import { UsageError } from './errors.js';

/**
 * Answers prompts from stdin, a line each. Lines are queued as they arrive, since piped input
 * brings every answer at once. A secret is not echoed: on a terminal readline echoes through
 * an output that drops everything while a secret is asked.
 */
class TerminalPrompt {
  private reader?: Interface;
  private readonly lines: string[] = [];
  private waiting?: { resolve: (line: string) => void; reject: (error: Error) => void };
  private ended = false;
  private muted = false;

  async ask(question: string, { secret }: { secret: boolean }): Promise<string> {
    this.start();
    process.stderr.write(question);
    this.muted = secret;
    try {
      return await this.nextLine();
    } finally {
      this.muted = false;
      if (secret && process.stdin.isTTY) process.stderr.write('\n');
    }
  }

  close(): void {
    this.reader?.close();
  }

  private nextLine(): Promise<string> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.reject(new UsageError('no answer: stdin ended'));
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  private start(): void {
    if (this.reader) return;
    const echo = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        if (!this.muted) process.stderr.write(chunk);
        done();
      },
    });
    this.reader = createInterface({
      input: process.stdin,
      output: echo,
      terminal: process.stdin.isTTY,
    });
    this.reader.on('line', (line) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting) waiting.resolve(line);
      else this.lines.push(line);
    });
    this.reader.on('close', () => {
      this.ended = true;
      this.waiting?.reject(new UsageError('no answer: stdin ended'));
      this.waiting = undefined;
    });
  }
}

/** The CLI's input and output as a terminal user has them; `close()` once the command ended. */
export function terminalIo(): CliIo & { close(): void } {
  const prompt = new TerminalPrompt();
  return {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    prompt: (question, options) => prompt.ask(question, options),
    // Listening for SIGINT replaces Node's exit on Ctrl-C, so only a watch listens.
    interrupted: () => new Promise((resolve) => process.once('SIGINT', () => resolve())),
    close: () => prompt.close(),
  };
}
