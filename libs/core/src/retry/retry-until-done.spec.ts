import { describe, expect, it } from '@jest/globals';
import { retryDelayMs, retryUntilDone } from './retry-until-done.js';

/** An attempt that fails `failures` times, then succeeds. */
function failing(failures: number): { attempt: () => Promise<void>; calls: () => number } {
  let calls = 0;
  return {
    attempt: async () => {
      calls += 1;
      if (calls <= failures) throw new Error(`refused ${calls}`);
    },
    calls: () => calls,
  };
}

describe('retryUntilDone', () => {
  it('waits 1 s after the first failure, doubling up to 30 s, until an attempt succeeds', async () => {
    const waits: number[] = [];
    const reported: unknown[] = [];
    const recovered: number[] = [];
    const task = failing(8);
    const done = await retryUntilDone(task.attempt, {
      signal: new AbortController().signal,
      onFirstFailure: (error) => reported.push(error),
      onRecovered: (failures) => recovered.push(failures),
      wait: async (ms) => {
        waits.push(ms);
      },
    });
    expect(done).toBe(true);
    expect(task.calls()).toBe(9);
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    // Eight failures, one report: the first, not one per attempt.
    expect(reported).toEqual([new Error('refused 1')]);
    expect(recovered).toEqual([8]);
  });

  it('neither waits nor reports when the first attempt succeeds', async () => {
    const waits: number[] = [];
    const reported: unknown[] = [];
    const recovered: number[] = [];
    const done = await retryUntilDone(failing(0).attempt, {
      signal: new AbortController().signal,
      onFirstFailure: (error) => reported.push(error),
      onRecovered: (failures) => recovered.push(failures),
      wait: async (ms) => {
        waits.push(ms);
      },
    });
    expect([done, waits, reported, recovered]).toEqual([true, [], [], []]);
  });

  it('stops when aborted during a wait, with the real timer, and never rejects', async () => {
    const controller = new AbortController();
    const task = failing(Infinity);
    const running = retryUntilDone(task.attempt, {
      signal: controller.signal,
      // Aborted once the first wait (a real 1 s timer) has begun.
      onFirstFailure: () => setImmediate(() => controller.abort()),
    });
    await expect(running).resolves.toBe(false);
    expect(task.calls()).toBe(1);
  });

  it('makes no further attempt once aborted, even when the wait is over', async () => {
    const controller = new AbortController();
    const task = failing(Infinity);
    const done = await retryUntilDone(task.attempt, {
      signal: controller.signal,
      onFirstFailure: () => undefined,
      wait: async () => controller.abort(),
    });
    expect([done, task.calls()]).toEqual([false, 1]);
  });

  it('computes the delay from the count of failures in a row', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map(retryDelayMs)).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });
});
