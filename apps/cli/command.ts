import type { ParseArgsConfig } from 'node:util';
import { createPlatformClient, type PlatformClient } from '@platform/api-client';
import { type Credentials, type Env, readCredentials } from './credentials.js';
import { ApiError, CliError, EXIT, NotLoggedInError, UsageError } from './errors.js';
import { type Column, type OutputFormat, render } from './output.js';

export const DEFAULT_API_URL = 'http://localhost:3000';
export const USER_AGENT = 'platform-cli/1';

/** What the CLI reads and writes outside itself, so tests run it in process. */
export interface CliIo {
  env: Env;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Asks on the terminal; `secret` does not echo what is typed. */
  prompt: (question: string, options: { secret: boolean }) => Promise<string>;
  /** Resolves when the user interrupts (Ctrl-C); ends `--watch`. */
  interrupted: () => Promise<void>;
}

export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface Command {
  /** The words that select it, e.g. `tokens create`. */
  name: string;
  summary: string;
  /** Its own options, besides the global ones. */
  options?: NonNullable<ParseArgsConfig['options']>;
  /** Options it cannot run without. */
  required?: string[];
  /** Positional arguments after its name, e.g. `<alert-id>`. */
  args?: string[];
  run: (context: CommandContext) => Promise<void>;
}

type Result<T> = { data?: T; error?: unknown; response: Response };

/** What a command runs with: its parsed arguments, the output and the API. */
export class CommandContext {
  constructor(
    readonly io: CliIo,
    readonly values: OptionValues,
    readonly args: string[],
    readonly format: OutputFormat,
  ) {}

  string(name: string): string | undefined {
    const value = this.values[name];
    return typeof value === 'string' ? value : undefined;
  }

  /** A required option's value; `parse` has checked it is there. */
  option(name: string): string {
    return this.string(name)!;
  }

  print<Row>(data: Row | readonly Row[], columns: readonly Column<Row>[]): void {
    this.io.stdout(render(this.format, data, columns));
  }

  /** `--api-url`, else `PLATFORM_API_URL`, else where the stored session was made. */
  apiUrl(stored?: Credentials): string {
    return (
      this.string('api-url') ?? this.io.env.PLATFORM_API_URL ?? stored?.api_url ?? DEFAULT_API_URL
    );
  }

  publicClient(): PlatformClient {
    return createPlatformClient({ baseUrl: this.apiUrl(), userAgent: USER_AGENT });
  }

  /** `PLATFORM_TOKEN` or the stored session's token, and its API; exit 3 without either. */
  async credential(): Promise<{ apiUrl: string; token: string }> {
    const stored = await readCredentials(this.io.env);
    const token = this.io.env.PLATFORM_TOKEN || stored?.token;
    if (!token) throw new NotLoggedInError();
    return { apiUrl: this.apiUrl(stored), token };
  }

  async client(): Promise<PlatformClient> {
    const { apiUrl, token } = await this.credential();
    return createPlatformClient({ baseUrl: apiUrl, token, userAgent: USER_AGENT });
  }

  /** The `data` of a success envelope, or the failure as the CLI reports it. */
  async data<T>(request: Promise<Result<{ data: T }>>): Promise<T> {
    const result = await this.send(request);
    return result.data!.data;
  }

  /** Sends a request whose success carries no body the CLI shows (204). */
  async send<T>(request: Promise<Result<T>>): Promise<Result<T>> {
    let result: Result<T>;
    try {
      result = await request;
    } catch (error) {
      throw new CliError(EXIT.apiError, `cannot reach the API: ${(error as Error).message}`);
    }
    if (result.response.ok) return result;
    const envelope = (result.error ?? {}) as { code?: string; message?: string };
    if (result.response.status === 401)
      throw new NotLoggedInError(
        `${envelope.code ?? 'unauthorized'}: ${envelope.message ?? 'the API refused the credentials'}; run \`platform login\``,
      );
    throw new ApiError(
      result.response.status,
      envelope.code ?? 'http_error',
      envelope.message ?? result.response.statusText,
    );
  }
}

/** A value of `--labels k=v,k2=v2`. */
export function parseLabels(text: string | undefined): Record<string, string> | undefined {
  if (text === undefined) return undefined;
  const labels: Record<string, string> = {};
  for (const pair of text.split(',').filter(Boolean)) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--labels takes name=value pairs, not ${pair}`);
    labels[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return labels;
}
