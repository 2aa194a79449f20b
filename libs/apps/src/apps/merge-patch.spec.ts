import { describe, expect, it } from '@jest/globals';
import { mergePatchFrom } from './merge-patch.js';

describe('mergePatchFrom', () => {
  it('removes what is gone, recurses into objects and replaces arrays whole', () => {
    const from = {
      image: { repository: 'r/a', tag: '1', digest: 'sha256:1' },
      port: 80,
      host: 'a.example.com',
      env: [{ name: 'A', value: '1' }],
    };
    const to = { image: { repository: 'r/a', tag: '2' }, port: 80, env: [] };
    expect(mergePatchFrom(from, to)).toEqual({
      image: { tag: '2', digest: null },
      host: null,
      env: [],
    });
  });

  it('is empty when nothing changes', () => {
    expect(mergePatchFrom({ a: { b: [1] } }, { a: { b: [1] } })).toEqual({});
  });

  it('replaces a value whose type changes', () => {
    expect(mergePatchFrom({ a: { b: 1 } }, { a: 'x' })).toEqual({ a: 'x' });
  });
});
