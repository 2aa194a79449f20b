import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from '@platform/testing';
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

  private output: { stdout: string; stderr: string } = { stdout: '', stderr: '' };

  /** The output of the latest run so far, while it runs (a `--watch`). */
  watch(): { readonly stdout: string; readonly stderr: string } {
    return this.output;
  }

  async run(...argv: string[]): Promise<CliRun> {
    const output = (this.output = { stdout: '', stderr: '' });
    const io: CliIo = {
      env: this.env,
      stdout: (text) => (output.stdout += text),
      stderr: (text) => (output.stderr += text),
      prompt: async (question) => {
        this.prompts.push(question);
        return this.answers.shift() ?? '';
      },
      interrupted: () => new Promise((resolve) => (this.interrupt = resolve)),
    };
    const code = await runCli(argv, io);
    return { code, ...output };
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

/** A user who passes a token (an API token or a session JWT) in PLATFORM_TOKEN instead of logging in. */
export class TokenUser extends CliUser {
  constructor(
    apiUrl: string,
    private readonly token: string,
  ) {
    super(apiUrl);
  }

  override get env(): Record<string, string> {
    return { ...super.env, PLATFORM_TOKEN: this.token };
  }
}

/** Makes an app a support helper created without `listen` answer on a port; its base URL. */
export async function listening(t: TestApp): Promise<string> {
  await t.app.listen(0, '127.0.0.1');
  const address = (t.app.getHttpServer() as Server).address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}
