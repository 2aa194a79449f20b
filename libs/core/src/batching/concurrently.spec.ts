import { describe, expect, it } from '@jest/globals';
import { forEachConcurrently } from './concurrently.js';

describe('forEachConcurrently', () => {
  it('runs every item, never more than the limit at once, starting them in order', async () => {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    await forEachConcurrently([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      started.push(n);
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
    });
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it('lets the other items finish, then rejects with the first failure', async () => {
    const done: number[] = [];
    await expect(
      forEachConcurrently([1, 2, 3], 2, async (n) => {
        if (n === 1) throw new Error('one failed');
        done.push(n);
      }),
    ).rejects.toThrow('one failed');
    expect(done).toEqual([2, 3]);
  });

  it('does nothing for no items', async () => {
    await forEachConcurrently([], 5, async () => {
      throw new Error('not called');
    });
  });
});
