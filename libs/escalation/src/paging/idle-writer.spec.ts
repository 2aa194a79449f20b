import { describe, expect, it } from '@jest/globals';
import { IdleWriter } from './idle-writer.js';

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

describe('IdleWriter', () => {
  const writer = (options: Partial<ConstructorParameters<typeof IdleWriter>[1]> = {}) => {
    const writes: number[][] = [];
    const idle = new IdleWriter<number>(
      async (items) => {
        writes.push(items);
      },
      { maxBatch: 3, maxDelayMs: 10_000, maxPending: 100, ...options },
    );
    return { idle, writes };
  };

  it('writes at once when nothing is busy, maxBatch to a write', async () => {
    const { idle, writes } = writer();
    await Promise.all([idle.add([1, 2]), idle.add([3, 4])]);
    expect(writes.flat()).toEqual([1, 2, 3, 4]);
    expect(writes.every((batch) => batch.length <= 3)).toBe(true);
  });

  it('holds items while a busy section is open and writes them when the last one closes', async () => {
    const { idle, writes } = writer();
    let release!: () => void;
    const first = idle.busy(() => new Promise<void>((resolve) => (release = resolve)));
    const second = idle.busy(async () => tick(20));
    const written = [idle.add([1]), idle.add([2])];
    await second;
    await tick();
    expect(writes).toEqual([]);
    release();
    await first;
    await Promise.all(written);
    expect(writes).toEqual([[1, 2]]);
  });

  it('writes anyway once the oldest item waited maxDelayMs, or maxPending wait', async () => {
    const late = writer({ maxDelayMs: 20 });
    let release!: () => void;
    const busy = late.idle.busy(() => new Promise<void>((resolve) => (release = resolve)));
    await late.idle.add([1]);
    expect(late.writes).toEqual([[1]]);

    const full = writer({ maxPending: 2 });
    let releaseFull!: () => void;
    const busyFull = full.idle.busy(() => new Promise<void>((resolve) => (releaseFull = resolve)));
    void full.idle.add([1]);
    await tick();
    expect(full.writes).toEqual([]);
    await full.idle.add([2]);
    expect(full.writes).toEqual([[1, 2]]);
    release();
    releaseFull();
    await Promise.all([busy, busyFull]);
  });

  it('holds items while the work runs elsewhere, asking again until it stops', async () => {
    let elsewhere = true;
    let asked = 0;
    const { idle, writes } = writer({
      recheckMs: 10,
      busyElsewhere: async () => {
        asked += 1;
        return elsewhere;
      },
    });
    const written = idle.add([1]);
    await tick(35);
    expect(writes).toEqual([]);
    expect(asked).toBeGreaterThanOrEqual(3);
    elsewhere = false;
    await written;
    expect(writes).toEqual([[1]]);
  });

  it('does not ask elsewhere while busy here, and writes at the deadline whatever runs elsewhere', async () => {
    let asked = 0;
    const { idle, writes } = writer({
      maxDelayMs: 40,
      recheckMs: 10,
      busyElsewhere: async () => {
        asked += 1;
        return true;
      },
    });
    let release!: () => void;
    const busy = idle.busy(() => new Promise<void>((resolve) => (release = resolve)));
    const written = idle.add([1]);
    await tick(20);
    expect(asked).toBe(0);
    release();
    await busy;
    await tick(5);
    expect(writes).toEqual([]);
    await written;
    expect(writes).toEqual([[1]]);
    expect(asked).toBeGreaterThanOrEqual(1);
  });

  it('writes when asking elsewhere fails', async () => {
    const { idle, writes } = writer({
      busyElsewhere: async () => {
        throw new Error('redis down');
      },
    });
    await idle.add([1]);
    expect(writes).toEqual([[1]]);
  });

  it('settles items added together once the last of them is written, across writes', async () => {
    const { idle, writes } = writer();
    let settled = false;
    const written = idle.add([1, 2, 3, 4, 5]).then(() => (settled = true));
    await written;
    expect(writes).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    expect(settled).toBe(true);

    let calls = 0;
    const failing = new IdleWriter<number>(
      async () => {
        calls += 1;
        if (calls === 2) throw new Error('database down');
      },
      { maxBatch: 2, maxDelayMs: 1_000, maxPending: 100 },
    );
    const outcomes = await Promise.allSettled([failing.add([1, 2]), failing.add([3, 4, 5])]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    expect(calls).toBe(3);
  });

  it('rejects the items of a failed write', async () => {
    const idle = new IdleWriter<number>(
      async () => {
        throw new Error('database down');
      },
      { maxBatch: 10, maxDelayMs: 1_000, maxPending: 100 },
    );
    await expect(idle.add([1])).rejects.toThrow('database down');
  });
});
