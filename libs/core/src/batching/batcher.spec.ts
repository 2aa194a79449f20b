import { describe, expect, it } from '@jest/globals';
import { Batcher } from './batcher.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Batcher', () => {
  it('hands calls of the same turn to one run and gives each caller its own result', async () => {
    const runs: number[][] = [];
    const batcher = new Batcher<number, number>(async (items) => {
      runs.push(items);
      return items.map((i) => i * 10);
    });
    await expect(Promise.all([1, 2, 3].map((i) => batcher.add(i)))).resolves.toEqual([10, 20, 30]);
    expect(runs).toEqual([[1, 2, 3]]);
  });

  it('collects the calls made while a batch is in flight into the next one', async () => {
    const runs: number[][] = [];
    let release: () => void = () => undefined;
    const batcher = new Batcher<number, number>(
      async (items) => {
        runs.push(items);
        if (runs.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return items;
      },
      { maxBatch: 2, intervalMs: 0 },
    );
    const first = batcher.add(1);
    await tick();
    const later = [2, 3, 4].map((i) => batcher.add(i));
    await tick();
    expect(runs).toEqual([[1]]);
    release();
    await expect(Promise.all([first, ...later])).resolves.toEqual([1, 2, 3, 4]);
    expect(runs).toEqual([[1], [2, 3], [4]]);
  });

  it('fails only the callers of a failed batch', async () => {
    let calls = 0;
    const batcher = new Batcher<number, number>(
      async (items) => {
        calls += 1;
        if (calls === 1) throw new Error('database gone');
        return items;
      },
      { maxBatch: 10, intervalMs: 0 },
    );
    const failed = batcher.add(1);
    await tick();
    const next = batcher.add(2);
    await expect(failed).rejects.toThrow('database gone');
    await expect(next).resolves.toBe(2);
  });

  it('gathers the calls that follow a batch within the interval into one', async () => {
    const runs: number[][] = [];
    const batcher = new Batcher<number, number>(
      async (items) => {
        runs.push(items);
        return items;
      },
      { maxBatch: 10, intervalMs: 500 },
    );
    await batcher.add(1);
    const second = batcher.add(2);
    await tick();
    const third = batcher.add(3);
    await tick();
    expect(runs).toEqual([[1]]);
    await expect(Promise.all([second, third])).resolves.toEqual([2, 3]);
    expect(runs).toEqual([[1], [2, 3]]);
  });
});
