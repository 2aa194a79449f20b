import { describe, expect, it } from '@jest/globals';
import { applyJsonPatch, applyMergePatch } from './patch.js';

describe('applyMergePatch (RFC 7386)', () => {
  it('merges objects, replaces arrays and removes keys set to null', () => {
    const target = { a: 1, b: { c: 2, d: 3 }, list: [1, 2] };
    const result = applyMergePatch(target, { b: { c: null, e: 4 }, list: [3], f: 'new' });
    expect(result).toEqual({ a: 1, b: { d: 3, e: 4 }, list: [3], f: 'new' });
    expect(target).toEqual({ a: 1, b: { c: 2, d: 3 }, list: [1, 2] });
  });
});

describe('applyJsonPatch (RFC 6902)', () => {
  it('applies add, remove, replace, move, copy and test in order', () => {
    const document = { spec: { a: 1, list: ['x'] }, metadata: { labels: { 'a/b': 'c' } } };
    const result = applyJsonPatch(structuredClone(document), [
      { op: 'add', path: '/spec/list/0', value: 'first' },
      { op: 'add', path: '/spec/list/-', value: 'last' },
      { op: 'replace', path: '/spec/a', value: 2 },
      { op: 'copy', from: '/spec/a', path: '/spec/b' },
      { op: 'move', from: '/spec/b', path: '/spec/c' },
      { op: 'remove', path: '/metadata/labels/a~1b' },
      { op: 'test', path: '/spec/c', value: 2 },
    ]);
    expect(result).toEqual({
      spec: { a: 2, c: 2, list: ['first', 'x', 'last'] },
      metadata: { labels: {} },
    });
  });

  it('fails with 422 on a missing path or a failed test', () => {
    expect(() => applyJsonPatch({}, [{ op: 'remove', path: '/spec/a' }])).toThrow('does not exist');
    expect(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }])).toThrow(
      'testing value /a failed',
    );
  });

  it('fails with 400 on a body that is not a list of operations', () => {
    expect(() => applyJsonPatch({}, { op: 'add' })).toThrow('must be an array');
    expect(() => applyJsonPatch({}, [{ op: 'jump', path: '/a' }])).toThrow(
      'unknown json patch operation',
    );
  });
});
