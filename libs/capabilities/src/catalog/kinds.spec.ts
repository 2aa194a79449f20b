import { describe, expect, it } from '@jest/globals';
import {
  concreteKinds,
  effectiveKinds,
  isEnabled,
  type KindSet,
  kindsBeyond,
  limitChange,
  normalizeKinds,
} from './kinds.js';

const AVAILABLE = ['wordpress', 'nextcloud', 'static_site', 'container'];

describe('effective kinds (Grant ∩ current Limit)', () => {
  it.each<[string, KindSet | undefined, KindSet, KindSet]>([
    ['no grant, unbounded limit', undefined, null, []],
    ['no grant, bounded limit', undefined, ['wordpress'], []],
    ['listed grant, unbounded limit', ['wordpress', 'nextcloud'], null, ['wordpress', 'nextcloud']],
    ['listed grant, narrower limit', ['wordpress', 'nextcloud'], ['nextcloud'], ['nextcloud']],
    ['listed grant, disjoint limit', ['wordpress'], ['container'], []],
    ['listed grant, empty limit', ['wordpress'], [], []],
    ['open grant, unbounded limit', null, null, null],
    ['open grant, bounded limit', null, ['container'], ['container']],
    ['empty grant', [], null, []],
  ])('%s', (_name, grant, limit, expected) => {
    expect(effectiveKinds(grant, limit)).toEqual(expected);
  });

  it('names the kinds beyond a Limit; nothing is beyond an unbounded one', () => {
    expect(kindsBeyond(['wordpress', 'container'], ['wordpress'])).toEqual(['container']);
    expect(kindsBeyond(['wordpress'], null)).toEqual([]);
    expect(kindsBeyond(null, ['wordpress'])).toEqual([]);
  });

  it('resolves unbounded to every offered kind when a concrete list is needed', () => {
    expect(concreteKinds(null, AVAILABLE)).toEqual(AVAILABLE);
    expect(concreteKinds(['container', 'wordpress'], AVAILABLE)).toEqual([
      'wordpress',
      'container',
    ]);
  });

  it('is enabled when anything (or the asked kind) is available', () => {
    expect(isEnabled(null)).toBe(true);
    expect(isEnabled([])).toBe(false);
    expect(isEnabled(['ingest'])).toBe(true);
    expect(isEnabled(['ingest'], 'phone')).toBe(false);
    expect(isEnabled(null, 'phone')).toBe(true);
  });

  it('keeps distinct kinds in catalog order', () => {
    expect(normalizeKinds(['container', 'wordpress', 'container'], AVAILABLE)).toEqual([
      'wordpress',
      'container',
    ]);
  });

  it('tells what a Limit change removed and added', () => {
    expect(limitChange(null, ['wordpress'], AVAILABLE)).toEqual({
      removed: ['nextcloud', 'static_site', 'container'],
      added: [],
    });
    expect(limitChange(['wordpress'], null, AVAILABLE)).toEqual({
      removed: [],
      added: ['nextcloud', 'static_site', 'container'],
    });
    expect(limitChange(['wordpress'], ['wordpress'], AVAILABLE)).toEqual({
      removed: [],
      added: [],
    });
  });
});
