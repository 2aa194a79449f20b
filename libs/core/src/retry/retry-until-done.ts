import { setTimeout as sleep } from 'node:timers/promises';

/** The wait after the first failure; it doubles with each further failure, up to the ceiling. */
export const RETRY_FIRST_DELAY_MS = 1000;
export const RETRY_MAX_DELAY_MS = 30_000;

/** The wait after the `failures`-th failure in a row: 1 s, 2 s, 4 s ... then 30 s. */
export function retryDelayMs(failures: number): number {
  return Math.min(RETRY_FIRST_DELAY_MS * 2 ** (failures - 1), RETRY_MAX_DELAY_MS);
}

export interface RetryOptions {
  /** Aborting ends the retries: the current wait ends at once and no attempt follows. */
  signal: AbortSignal;
  /** Told about the first failure only, so a long outage is reported once, not per attempt. */
  onFirstFailure: (error: unknown) => void;
  /** Told when an attempt succeeds after `failures` failed ones. */
  onRecovered?: (failures: number) => void;
  /** How to wait between attempts; a timer unless a test says otherwise. */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * Runs `attempt` until it succeeds, waiting `retryDelayMs` between failures. Resolves true once
 * an attempt succeeded, false when aborted first; it never rejects, so work that may outlast an
 * outage (start-up work that must not stop a process) can run it in the background.
 */
export async function retryUntilDone(
  attempt: () => Promise<unknown>,
  options: RetryOptions,
): Promise<boolean> {
  const wait = options.wait ?? ((ms, signal) => sleep(ms, undefined, { signal }));
  let failures = 0;
  while (!options.signal.aborted) {
    try {
      await attempt();
      if (failures > 0) options.onRecovered?.(failures);
      return true;
    } catch (error) {
      if (options.signal.aborted) return false;
      failures += 1;
      if (failures === 1) options.onFirstFailure(error);
    }
    try {
      await wait(retryDelayMs(failures), options.signal);
    } catch {
      return false;
    }
  }
  return false;
}
