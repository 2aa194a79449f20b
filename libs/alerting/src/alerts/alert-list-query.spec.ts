import { describe, expect, it } from '@jest/globals';
import { containsPattern, parseAlertListQuery, parsePaging } from './alert-list-query.js';

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
