import { describe, expect, it } from '@jest/globals';
import { Precedence } from './precedence.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Precedence', () => {
  it('lets the second kind of work go at once when nothing of the first runs', async () => {
    const started = Date.now();
    await new Precedence().after(1_000);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('holds the second kind while the first runs, through the gap between two of its jobs', async () => {
    const precedence = new Precedence(30);
    const order: string[] = [];
    const firstJob = precedence.first(async () => {
      await sleep(20);
      order.push('first 1');
    });
    const waiting = precedence.after(5_000).then(() => order.push('second'));
    await firstJob;
    // The next job of the first kind starts within the quiet moment.
    await sleep(5);
    await precedence.first(async () => {
      await sleep(20);
      order.push('first 2');
    });
    await waiting;
    expect(order).toEqual(['first 1', 'first 2', 'second']);
  });

  it('delays the second kind at most its limit', async () => {
    const precedence = new Precedence();
    let release!: () => void;
    const long = precedence.first(() => new Promise<void>((resolve) => (release = resolve)));
    let done = false;
    const waiting = precedence.after(30).then(() => (done = true));
    await sleep(10);
    expect(done).toBe(false);
    await waiting;
    expect(done).toBe(true);
    release();
    await long;
  });
});
