import { describe, expect, it } from '@jest/globals';
import { ProjectSearchTexts } from './project-search-texts.js';

/** What the SQL count says: the texts containing the term. */
const reference = (texts: string[], term: string) => texts.filter((t) => t.includes(term)).length;

describe('ProjectSearchTexts', () => {
  const texts = [
    'a1b2\u001fqueuebacklog\u001fqueue orders growing',
    'ffff\u001fdiskfull\u001fdisk almost full',
    'c3d4\u001fqueuebacklog\u001fqueue billing growing',
    '',
    'aaaa\u001faaaa\u001faaaa',
  ];

  it('counts each text containing the term once, however often it holds it', () => {
    const held = ProjectSearchTexts.of(7, texts);
    expect(held.generation).toBe(7);
    expect(held.alerts).toBe(5);
    for (const term of ['a', 'aa', 'queue', 'growing', 'full', 'f', '\u001f', 'x', 'ordersq'])
      expect([term, held.count(term)]).toEqual([term, reference(texts, term)]);
  });

  it('never matches across two texts', () => {
    const held = ProjectSearchTexts.of(1, ['abc', 'def']);
    expect(held.count('cd')).toBe(0);
    expect(held.count('c')).toBe(1);
  });

  it('appends as a new instance and leaves the old one as it was', () => {
    const before = ProjectSearchTexts.of(3, texts.slice(0, 2));
    const after = before.append(9, texts.slice(2));
    expect(before.count('queue')).toBe(1);
    expect(before.generation).toBe(3);
    expect(after.count('queue')).toBe(2);
    expect(after.generation).toBe(9);
    expect(after.alerts).toBe(5);
    expect(after.bytes).toBe(texts.reduce((n, t) => n + t.length + 1, 0));
  });

  it('counts the same across chunk boundaries', () => {
    const many = Array.from(
      { length: 30_000 },
      (_, i) => `${i.toString(16)}\u001fname${i % 7}\u001fsummary of ${i}`,
    );
    let held = ProjectSearchTexts.of(1, many.slice(0, 12_345));
    held = held.append(2, many.slice(12_345, 20_000)).append(3, many.slice(20_000));
    expect(ProjectSearchTexts.of(1, []).count('a')).toBe(0);
    // Small chunks: many boundaries, and appends that fill the last chunk first.
    let small = ProjectSearchTexts.of(1, many.slice(0, 10_000), 1_000);
    small = small.append(2, many.slice(10_000, 10_003)).append(3, many.slice(10_003));
    for (const term of ['name3', 'of 1', '9', 'f\u001fname', 'summary'])
      expect([term, small.count(term), held.count(term)]).toEqual([
        term,
        reference(many, term),
        reference(many, term),
      ]);
    expect(small.bytes).toBe(held.bytes);
    expect(small.alerts).toBe(30_000);
  });

  it('counts off replaced texts', () => {
    const held = ProjectSearchTexts.of(1, ['disk full', 'queue growing', 'queue growing']).append(
      4,
      ['queue shrinking', 'disk full'],
      ['queue growing'],
    );
    expect(held.count('queue')).toBe(2);
    expect(held.count('growing')).toBe(1);
    expect(held.count('disk')).toBe(2);
    expect(held.alerts).toBe(4);
    expect(held.replacedTexts).toBe(1);
    expect(held.bytes).toBe(10 + 14 + 14 + 16 + 10 + 14);
  });

  it('counts two bytes per character of texts beyond Latin-1', () => {
    expect(ProjectSearchTexts.of(1, ['ab']).bytes).toBe(3);
    expect(ProjectSearchTexts.of(1, ['größe']).bytes).toBe(6);
    expect(ProjectSearchTexts.of(1, ['диск']).bytes).toBe(10);
    expect(ProjectSearchTexts.of(1, ['диск']).count('иск')).toBe(1);
  });
});
