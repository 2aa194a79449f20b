import { describe, expect, it } from '@jest/globals';
import { shardStarts } from './fan-out.repository.js';

describe('shardStarts', () => {
  it('splits the uuid space into equal slices from the zero id up', () => {
    expect(shardStarts(4)).toEqual([
      '00000000-0000-0000-0000-000000000000',
      '40000000-0000-0000-0000-000000000000',
      '80000000-0000-0000-0000-000000000000',
      'c0000000-0000-0000-0000-000000000000',
    ]);
    const eight = shardStarts(8);
    expect(eight).toHaveLength(8);
    expect([...eight].sort()).toEqual(eight);
    expect(eight[1]).toBe('20000000-0000-0000-0000-000000000000');
  });
});
