import { Injectable } from '@nestjs/common';

export type HealthCheck = () => Promise<void>;
export interface CheckResult {
  status: 'up' | 'down';
  error?: string;
}

/**
 * Readiness checks contributed by the modules that own the dependency (database, Redis, ...),
 * and the process's own state: once it begins to shut down it is not ready, whatever the checks
 * say, so load balancers stop sending it work before it stops listening.
 */
@Injectable()
export class HealthRegistry {
  private readonly checks = new Map<string, HealthCheck>();
  private draining = false;

  register(name: string, check: HealthCheck): void {
    this.checks.set(name, check);
  }

  /** From now on the process reports not ready (`checks.process` down: shutting down). */
  beginDrain(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  async run(timeoutMs = 2000): Promise<Record<string, CheckResult>> {
    const results = await this.runChecks(timeoutMs);
    if (this.draining) results.process = { status: 'down', error: 'shutting down' };
    return results;
  }

  private async runChecks(timeoutMs: number): Promise<Record<string, CheckResult>> {
    const entries = await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            check(),
            new Promise((_, reject) => {
              timer = setTimeout(
                () => reject(new Error(`timed out after ${timeoutMs} ms`)),
                timeoutMs,
              );
            }),
          ]);
          return [name, { status: 'up' as const }] as const;
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          return [name, { status: 'down' as const, error: message }] as const;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    return Object.fromEntries(entries) as Record<string, CheckResult>;
  }
}
