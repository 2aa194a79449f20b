import { describe, expect, it } from '@jest/globals';
import {
  containsPattern,
  countsInHeldTexts,
  keptTotalUse,
  parseAlertListQuery,
  parsePaging,
  keptTerm,
  searchPageStrategy,
} from './alert-list-query.js';

describe('parseAlertListQuery', () => {
  it('defaults: no filters, limit 25, offset 0', () => {
    expect(parseAlertListQuery({})).toEqual({
      q: null,
      status: null,
      acknowledged: null,
      limit: 25,
      offset: 0,
    });
  });

  it.each([
    ['0', 1],
    ['1', 1],
    ['200', 200],
    ['201', 200],
    ['500', 200],
    ['-5', 1],
    [' 30 ', 30],
    ['abc', 25],
    ['', 25],
    ['2.5', 25],
    ['1e3', 25],
    ['12abc', 25],
    ['99999999999999999999999', 200],
  ])('limit %j → %d', (limit, expected) => {
    expect(parseAlertListQuery({ limit }).limit).toBe(expected);
  });

  it.each([
    ['0', 0],
    ['40', 40],
    ['-5', 0],
    ['abc', 0],
    ['99999999999999999999999', Number.MAX_SAFE_INTEGER],
  ])('offset %j → %d', (offset, expected) => {
    expect(parseAlertListQuery({ offset }).offset).toBe(expected);
  });

  it('keeps firing and resolved, ignores other statuses', () => {
    expect(parseAlertListQuery({ status: 'firing' }).status).toBe('firing');
    expect(parseAlertListQuery({ status: 'resolved' }).status).toBe('resolved');
    for (const status of ['FIRING', 'pending', '', 'firing,resolved'])
      expect(parseAlertListQuery({ status }).status).toBeNull();
  });

  it('reads acknowledged true and false only', () => {
    expect(parseAlertListQuery({ acknowledged: 'true' }).acknowledged).toBe(true);
    expect(parseAlertListQuery({ acknowledged: 'false' }).acknowledged).toBe(false);
    for (const acknowledged of ['yes', '1', 'TRUE', ''])
      expect(parseAlertListQuery({ acknowledged }).acknowledged).toBeNull();
  });

  it('takes the first of repeated parameters and ignores non-strings', () => {
    expect(parseAlertListQuery({ q: ['disk', 'cpu'], limit: ['5', '9'] })).toMatchObject({
      q: 'disk',
      limit: 5,
    });
    expect(parseAlertListQuery({ q: { nested: 'x' } }).q).toBeNull();
  });

  it('treats an empty q as no search and keeps any other q verbatim', () => {
    expect(parseAlertListQuery({ q: '' }).q).toBeNull();
    expect(parseAlertListQuery({ q: ' Disk ' }).q).toBe(' Disk ');
  });
});

describe('parsePaging', () => {
  it('clamps to the given bounds', () => {
    expect(parsePaging({ limit: '1000' }, 100, 500)).toEqual({ limit: 500, offset: 0 });
    expect(parsePaging({}, 100, 500)).toEqual({ limit: 100, offset: 0 });
  });
});

describe('containsPattern', () => {
  it('wraps in % and escapes the LIKE metacharacters and the escape itself', () => {
    expect(containsPattern('disk')).toBe('%disk%');
    expect(containsPattern('100%')).toBe('%100\\%%');
    expect(containsPattern('a_b')).toBe('%a\\_b%');
    expect(containsPattern('C:\\tmp')).toBe('%C:\\\\tmp%');
    expect(containsPattern('%_\\')).toBe('%\\%\\_\\\\%');
  });
});

describe('keptTerm', () => {
  const filter = parseAlertListQuery({ q: 'Disk' });

  it('keeps the total of a plain search', () => {
    expect(keptTerm(filter)).toBe('Disk');
  });

  it('keeps none without search, with a status or acknowledged filter, a separator or a long q', () => {
    expect(keptTerm({ ...filter, q: null })).toBeNull();
    expect(keptTerm({ ...filter, status: 'firing' })).toBeNull();
    expect(keptTerm({ ...filter, acknowledged: false })).toBeNull();
    expect(keptTerm({ ...filter, q: 'a\u001fb' })).toBeNull();
    expect(keptTerm({ ...filter, q: 'x'.repeat(200) })).toBe('x'.repeat(200));
    expect(keptTerm({ ...filter, q: 'x'.repeat(201) })).toBeNull();
  });
});

describe('keptTotalUse', () => {
  it('takes the kept total while nothing changed since it was counted', () => {
    expect(keptTotalUse({ generation: 7, rewritten: 3, counted: 7 })).toBe('kept');
  });

  it('brings the kept total forward when no alert went since', () => {
    expect(keptTotalUse({ generation: 9, rewritten: 3, counted: 7 })).toBe('forward');
    expect(keptTotalUse({ generation: 9, rewritten: 7, counted: 7 })).toBe('forward');
  });

  it('counts afresh once alerts went, without a kept total or with one from elsewhere', () => {
    expect(keptTotalUse({ generation: 9, rewritten: 8, counted: 7 })).toBe('count');
    expect(keptTotalUse({ generation: 9, rewritten: 0, counted: null })).toBe('count');
    expect(keptTotalUse({ generation: null, rewritten: 0, counted: null })).toBe('count');
    expect(keptTotalUse({ generation: 5, rewritten: 0, counted: 7 })).toBe('count');
  });
});

describe('countsInHeldTexts', () => {
  const way = (w: Partial<Parameters<typeof countsInHeldTexts>[0]>) =>
    countsInHeldTexts({
      use: 'forward',
      textsGeneration: 10,
      textsAlerts: 250_000,
      countedAt: 8,
      addedSinceCounted: 20,
      ...w,
    });

  it('counts in the held texts when no total is kept', () => {
    expect(way({ use: 'count', countedAt: null, addedSinceCounted: 0 })).toBe(true);
  });

  it('brings a kept total forward while few alerts were added since it', () => {
    expect(way({})).toBe(false);
    expect(way({ addedSinceCounted: 2_500 })).toBe(false);
    expect(way({ addedSinceCounted: 2_501 })).toBe(true);
  });

  it('never counts in texts older than the kept total, nor as old', () => {
    expect(way({ addedSinceCounted: 100_000, textsGeneration: 8 })).toBe(false);
    expect(way({ addedSinceCounted: 100_000, textsGeneration: 7 })).toBe(false);
  });
});

describe('searchPageStrategy', () => {
  const page = { alerts: 250_000, limit: 25, offset: 0 };

  it('walks the list for broad terms and collects selective ones', () => {
    expect(searchPageStrategy({ ...page, total: 250_000 })).toBe('walk');
    expect(searchPageStrategy({ ...page, total: 625 })).toBe('walk');
    expect(searchPageStrategy({ ...page, total: 624 })).toBe('collect');
    expect(searchPageStrategy({ ...page, total: 9 })).toBe('collect');
  });

  it('collects for deep pages that walking would reach only far down the list', () => {
    expect(searchPageStrategy({ ...page, total: 5_000, offset: 10_000 })).toBe('collect');
    expect(searchPageStrategy({ ...page, total: 5_000, offset: 1_000 })).toBe('walk');
  });
});
