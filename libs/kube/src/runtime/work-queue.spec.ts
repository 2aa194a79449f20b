import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '@platform/testing';
import { WorkQueue, type WorkQueueOptions } from './work-queue.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

async function until(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Lets timers and promise callbacks run for a while without the condition being awaited. */
function settle(ms = 40): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function queueWith(
  process: WorkQueueOptions['process'],
  options: Partial<WorkQueueOptions> = {},
): { queue: WorkQueue; clock: FakeClock } {
  const clock = new FakeClock('2030-01-01T00:00:00Z');
  const queue = new WorkQueue({ workers: 4, clock, clockCheckMs: 5, process, ...options });
  return { queue, clock };
}

describe('WorkQueue', () => {
  it('processes a key queued many times once', async () => {
    const seen: string[] = [];
    const { queue } = queueWith(async (key) => void seen.push(key));
    for (let i = 0; i < 5; i += 1) queue.add('ns/a');
    queue.add('ns/b');
    queue.add('ns/a');
    expect(queue.depth).toBe(2);
    queue.start();
    await queue.idle();
    expect(seen).toEqual(['ns/a', 'ns/b']);
    expect(queue.depth).toBe(0);
    await queue.stop();
  });

  it('never runs one key twice at once, and runs a key queued meanwhile once more afterwards', async () => {
    let running = 0;
    let mostAtOnce = 0;
    let runs = 0;
    const gates = [deferred(), deferred()];
    const { queue } = queueWith(async () => {
      const gate = gates[runs]!;
      runs += 1;
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      await gate.promise;
      running -= 1;
    });
    queue.start();
    queue.add('ns/a');
    await until(() => runs === 1);
    queue.add('ns/a');
    queue.add('ns/a');
    queue.add('ns/a');
    await settle();
    expect(runs).toBe(1);
    expect(queue.depth).toBe(0);
    gates[0]!.resolve();
    await until(() => runs === 2);
    gates[1]!.resolve();
    await queue.idle();
    await settle();
    expect(runs).toBe(2);
    expect(mostAtOnce).toBe(1);
    await queue.stop();
  });

  it('runs at most `workers` keys at the same time', async () => {
    let running = 0;
    let mostAtOnce = 0;
    const gate = deferred();
    const { queue } = queueWith(
      async () => {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        await gate.promise;
        running -= 1;
      },
      { workers: 2 },
    );
    for (const key of ['a', 'b', 'c', 'd']) queue.add(key);
    queue.start();
    await until(() => running === 2);
    await settle();
    expect(running).toBe(2);
    expect(queue.depth).toBe(2);
    gate.resolve();
    await queue.idle();
    expect(mostAtOnce).toBe(2);
    await queue.stop();
  });

  it('doubles the retry delay per failure from 1 s up to the 5 minute cap', () => {
    const { queue } = queueWith(async () => undefined);
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((n) => queue.backoff(n))).toEqual([
      1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000, 300000, 300000, 300000,
    ]);
    expect(queue.backoff(5000)).toBe(300000);
  });

  it('adds at most the jitter fraction to a delay, still capped', () => {
    const { queue } = queueWith(async () => undefined, { jitter: 0.5 });
    for (let i = 0; i < 50; i += 1) {
      const delay = queue.backoff(3);
      expect(delay).toBeGreaterThanOrEqual(4000);
      expect(delay).toBeLessThanOrEqual(6000);
      expect(queue.backoff(9)).toBeLessThanOrEqual(300000);
    }
  });

  it('retries a failing key when the clock reaches its backoff, and forgets failures after a success', async () => {
    let attempts = 0;
    const failures: Array<[string, number, number]> = [];
    const { queue, clock } = queueWith(
      async () => {
        attempts += 1;
        if (attempts <= 2) throw new Error('API server said no');
      },
      { onFailure: (key, _error, attempt, retryInMs) => failures.push([key, attempt, retryInMs]) },
    );
    queue.start();
    queue.add('ns/a');
    await until(() => attempts === 1);
    expect(queue.dueAt('ns/a')).toBe(clock.nowMs() + 1000);
    clock.advance({ ms: 999 });
    await settle();
    expect(attempts).toBe(1);
    clock.advance({ ms: 1 });
    await until(() => attempts === 2);
    expect(failures).toEqual([
      ['ns/a', 1, 1000],
      ['ns/a', 2, 2000],
    ]);
    clock.advance({ ms: 1999 });
    await settle();
    expect(attempts).toBe(2);
    clock.advance({ ms: 1 });
    await until(() => attempts === 3);
    await queue.idle();
    expect(queue.failuresOf('ns/a')).toBe(0);
    expect(queue.dueAt('ns/a')).toBeUndefined();
    await queue.stop();
  });

  it('runs a key again after requeueAfterMs by the clock', async () => {
    let runs = 0;
    const { queue, clock } = queueWith(async () => {
      runs += 1;
      return runs === 1 ? { requeueAfterMs: 30_000 } : undefined;
    });
    queue.start();
    queue.add('ns/a');
    await until(() => runs === 1);
    clock.advance({ seconds: 29 });
    await settle();
    expect(runs).toBe(1);
    clock.advance({ seconds: 1 });
    await until(() => runs === 2);
    await queue.stop();
  });

  it('keeps the earlier due time when a key is delayed twice', () => {
    const { queue, clock } = queueWith(async () => undefined);
    queue.addAfter('ns/a', 5000);
    queue.addAfter('ns/a', 60_000);
    expect(queue.dueAt('ns/a')).toBe(clock.nowMs() + 5000);
    queue.addAfter('ns/a', 1000);
    expect(queue.dueAt('ns/a')).toBe(clock.nowMs() + 1000);
    queue.clear();
  });

  it('stops after the running keys finish and takes no new ones until started again', async () => {
    const gate = deferred();
    const seen: string[] = [];
    const { queue } = queueWith(async (key) => {
      seen.push(key);
      if (key === 'a') await gate.promise;
    });
    queue.start();
    queue.add('a');
    await until(() => seen.length === 1);
    let stopped = false;
    const stopping = queue.stop().then(() => (stopped = true));
    queue.add('b');
    await settle();
    expect(stopped).toBe(false);
    gate.resolve();
    await stopping;
    expect(seen).toEqual(['a']);
    expect(queue.depth).toBe(1);
    queue.start();
    await queue.idle();
    expect(seen).toEqual(['a', 'b']);
    await queue.stop();
  });

  it('reports its depth on every change', async () => {
    const depths: number[] = [];
    const { queue } = queueWith(async () => undefined, {
      onDepthChange: (depth) => depths.push(depth),
    });
    queue.add('a');
    queue.add('b');
    queue.add('a');
    queue.start();
    await queue.idle();
    expect(depths).toEqual([1, 2, 1, 0]);
    await queue.stop();
  });
});
