import { describe, expect, it } from '@jest/globals';
import { type JobQueue, QueueName } from '@platform/queue';
import { InAppFirst } from './in-app-first.js';

/** The in-app queue's jobs waiting or running on any worker, as the test sets them. */
function queueWith(unfinished: () => number | Promise<number>) {
  const asked: QueueName[] = [];
  const queue = {
    unfinished: async (name: QueueName) => {
      asked.push(name);
      return unfinished();
    },
  } as unknown as JobQueue;
  return { queue, asked };
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((r) => setTimeout(r, ms));
  return settled;
}

describe('InAppFirst', () => {
  it('lets a batch go at once when no in-app work runs anywhere', async () => {
    const { queue, asked } = queueWith(() => 0);
    const gate = new InAppFirst(queue);
    expect(await settlesWithin(gate.turn(QueueName.Pages), 20)).toBe(true);
    expect(asked).toEqual([QueueName.Pages]);
  });

  it("holds a batch while this process's in-app work runs, and lets it go when it ends", async () => {
    const { queue } = queueWith(() => 0);
    const gate = new InAppFirst(queue);
    const work = deferred();
    const running = gate.inApp(async () => {
      await work.promise;
      return 'written';
    });
    const turn = gate.turn(QueueName.Pages, 5_000);
    expect(await settlesWithin(turn, 100)).toBe(false);
    work.resolve();
    expect(await running).toBe('written');
    expect(await settlesWithin(turn, 50)).toBe(true);
  });

  it('holds a batch while in-app jobs wait or run on other workers', async () => {
    let unfinished = 2;
    const { queue, asked } = queueWith(() => unfinished);
    const gate = new InAppFirst(queue);
    const turn = gate.turn(QueueName.Pages, 5_000);
    expect(await settlesWithin(turn, 150)).toBe(false);
    expect(asked.length).toBeGreaterThan(1);
    unfinished = 0;
    expect(await settlesWithin(turn, 150)).toBe(true);
  });

  it('waits no longer than its limit, however long in-app work lasts', async () => {
    const { queue } = queueWith(() => 7);
    const gate = new InAppFirst(queue);
    const work = deferred();
    void gate.inApp(() => work.promise);
    const started = Date.now();
    await gate.turn(QueueName.Pages, 120);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    work.resolve();
  });

  it('does not wait when the queue cannot be read (Redis down)', async () => {
    const { queue } = queueWith(() => Promise.reject(new Error('redis unavailable')));
    const gate = new InAppFirst(queue);
    expect(await settlesWithin(gate.turn(QueueName.Pages, 5_000), 50)).toBe(true);
  });

  it('answers a failure of the in-app work to its caller and still lets batches go', async () => {
    const { queue } = queueWith(() => 0);
    const gate = new InAppFirst(queue);
    await expect(gate.inApp(() => Promise.reject(new Error('insert failed')))).rejects.toThrow(
      'insert failed',
    );
    expect(await settlesWithin(gate.turn(QueueName.Pages, 5_000), 20)).toBe(true);
  });
});
