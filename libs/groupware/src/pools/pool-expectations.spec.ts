import { describe, expect, it } from '@jest/globals';
import { EXPECTATION_TTL_MS, PoolExpectations } from './pool-expectations.js';

describe('PoolExpectations', () => {
  it('counts a create until the cache shows it', () => {
    const expectations = new PoolExpectations();
    expectations.expectCreated('warm', 'warm-abcde', 0);
    expect(expectations.pending('warm', new Set(), 10).creates).toEqual(['warm-abcde']);
    expect(expectations.pending('other', new Set(), 10).creates).toEqual([]);
    expect(expectations.pending('warm', new Set(['warm-abcde']), 20).creates).toEqual([]);
    // Seen once is settled: a later miss (the instance deleted) is not a pending create.
    expect(expectations.pending('warm', new Set(), 30).creates).toEqual([]);
  });

  it('counts a delete until the cache no longer shows it', () => {
    const expectations = new PoolExpectations();
    expectations.expectDeleted('warm', 'warm-abcde', 0);
    expect(expectations.pending('warm', new Set(['warm-abcde']), 10).deletes).toEqual(
      new Set(['warm-abcde']),
    );
    expect(expectations.pending('warm', new Set(), 20).deletes).toEqual(new Set());
  });

  it('gives up on a write whose event never came after the TTL', () => {
    const expectations = new PoolExpectations();
    expectations.expectCreated('warm', 'warm-lost1', 0);
    expectations.expectDeleted('warm', 'warm-lost2', 0);
    const early = expectations.pending('warm', new Set(['warm-lost2']), EXPECTATION_TTL_MS - 1);
    expect(early.creates).toEqual(['warm-lost1']);
    expect(early.deletes).toEqual(new Set(['warm-lost2']));
    const late = expectations.pending('warm', new Set(['warm-lost2']), EXPECTATION_TTL_MS);
    expect(late).toEqual({ creates: [], deletes: new Set() });
  });
});
