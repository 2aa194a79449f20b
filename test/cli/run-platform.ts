import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../apps/cli/cli.js';
import type { CliIo } from '../../apps/cli/command.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A user of the CLI: their own config dir, the API's address, answers to prompts. */
export class CliUser {
  readonly configHome = mkdtempSync(join(tmpdir(), 'platform-cli-'));
  /** What the prompts answer, in order. */
  answers: string[] = [];
  prompts: string[] = [];
  private interrupt: () => void = () => undefined;

  constructor(readonly apiUrl: string) {}

  get env(): Record<string, string> {
    return { XDG_CONFIG_HOME: this.configHome, PLATFORM_API_URL: this.apiUrl };
  }

  /** Ends a running `--watch` as Ctrl-C would. */
  stopWatching(): void {
    this.interrupt();
  }

  async run(...argv: string[]): Promise<CliRun> {
    let stdout = '';
    let stderr = '';
    const io: CliIo = {
      env: this.env,
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      prompt: async (question) => {
        this.prompts.push(question);
        return this.answers.shift() ?? '';
      },
      interrupted: () => new Promise((resolve) => (this.interrupt = resolve)),
    };
    const code = await runCli(argv, io);
    return { code, stdout, stderr };
  }

  /** Runs a command that must succeed; its stdout parsed as JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads any field
  async json<T = any>(...argv: string[]): Promise<T> {
    const result = await this.run(...argv, '--output', 'json');
    if (result.code !== 0)
      throw new Error(`${argv.join(' ')} exited ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  }
}
