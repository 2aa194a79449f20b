import { describe, expect, it } from '@jest/globals';
import { inQuietHours, localTime, parseHHMM, resolveTimeZone } from './time-zone.js';

const BERLIN = 'Europe/Berlin';
const at = (iso: string): Date => new Date(iso);

describe('resolveTimeZone', () => {
  it.each([
    // Rails ActiveSupport names
    ['Berlin', 'Europe/Berlin'],
    ['Eastern Time (US & Canada)', 'America/New_York'],
    ['Pacific Time (US & Canada)', 'America/Los_Angeles'],
    ['Kolkata', 'Asia/Kolkata'],
    ['UTC', 'Etc/UTC'],
    // IANA names, returned as given (not turned into legacy aliases)
    ['Europe/Berlin', 'Europe/Berlin'],
    ['America/New_York', 'America/New_York'],
    ['Asia/Kolkata', 'Asia/Kolkata'],
    ['Etc/UTC', 'Etc/UTC'],
    ['Etc/GMT+5', 'Etc/GMT+5'],
    // letter case of an IANA name is corrected
    ['europe/berlin', 'Europe/Berlin'],
  ])('resolves %j to %j', (name, expected) => {
    expect(resolveTimeZone(name)).toBe(expected);
  });

  it.each(['', 'Nowhere', 'Europe/Nowhere', 'berlin', ' Europe/Berlin', 'toString', '__proto__'])(
    'refuses %j',
    (name) => {
      expect(resolveTimeZone(name)).toBeNull();
    },
  );
});

describe('localTime', () => {
  it.each([
    ['2026-01-15T12:34:00Z', BERLIN, { date: '2026-01-15', hour: 13, minute: 34 }],
    ['2026-07-15T12:34:00Z', BERLIN, { date: '2026-07-15', hour: 14, minute: 34 }],
    ['2026-01-15T23:30:00Z', BERLIN, { date: '2026-01-16', hour: 0, minute: 30 }],
    ['2026-01-15T03:00:00Z', 'America/New_York', { date: '2026-01-14', hour: 22, minute: 0 }],
    ['2026-01-15T00:00:00Z', 'Etc/UTC', { date: '2026-01-15', hour: 0, minute: 0 }],
    // spring forward: 02:00 CET becomes 03:00 CEST
    ['2026-03-29T00:59:00Z', BERLIN, { date: '2026-03-29', hour: 1, minute: 59 }],
    ['2026-03-29T01:00:00Z', BERLIN, { date: '2026-03-29', hour: 3, minute: 0 }],
    // fall back: 03:00 CEST becomes 02:00 CET
    ['2026-10-25T00:59:00Z', BERLIN, { date: '2026-10-25', hour: 2, minute: 59 }],
    ['2026-10-25T01:00:00Z', BERLIN, { date: '2026-10-25', hour: 2, minute: 0 }],
  ])('%s in %s is %j', (iso, zone, expected) => {
    expect(localTime(at(iso), zone)).toEqual(expected);
  });

  it('throws for an unknown zone', () => {
    expect(() => localTime(at('2026-01-15T00:00:00Z'), 'Europe/Nowhere')).toThrow(RangeError);
  });
});

describe('parseHHMM', () => {
  it.each([
    ['00:00', { hour: 0, minute: 0 }],
    ['07:00', { hour: 7, minute: 0 }],
    ['12:59', { hour: 12, minute: 59 }],
    ['23:59', { hour: 23, minute: 59 }],
  ])('parses %j', (value, expected) => {
    expect(parseHHMM(value)).toEqual(expected);
  });

  it.each([
    '24:00',
    '12:60',
    '7:00',
    'ab:cd',
    '',
    '07:00:00',
    '07:0',
    ' 07:00',
    '07:00\n',
    '-1:00',
  ])('refuses %j', (value) => {
    expect(parseHHMM(value)).toBeNull();
  });
});

describe('inQuietHours', () => {
  it.each([
    // window wrapping midnight, 22:00–07:00 Berlin (winter, UTC+1)
    ['2026-01-15T20:59:00Z', '22:00', '07:00', false], // 21:59
    ['2026-01-15T21:00:00Z', '22:00', '07:00', true], // 22:00, start inclusive
    ['2026-01-15T23:30:00Z', '22:00', '07:00', true], // 00:30 next day
    ['2026-01-16T05:59:00Z', '22:00', '07:00', true], // 06:59
    ['2026-01-16T06:00:00Z', '22:00', '07:00', false], // 07:00, end exclusive
    ['2026-01-16T11:00:00Z', '22:00', '07:00', false], // 12:00
    // same window in summer (UTC+2)
    ['2026-07-15T19:59:00Z', '22:00', '07:00', false], // 21:59
    ['2026-07-15T20:00:00Z', '22:00', '07:00', true], // 22:00
    ['2026-07-16T04:59:00Z', '22:00', '07:00', true], // 06:59
    ['2026-07-16T05:00:00Z', '22:00', '07:00', false], // 07:00
    // window within one day, 12:00–13:30
    ['2026-01-15T10:59:00Z', '12:00', '13:30', false],
    ['2026-01-15T11:00:00Z', '12:00', '13:30', true],
    ['2026-01-15T12:29:00Z', '12:00', '13:30', true],
    ['2026-01-15T12:30:00Z', '12:00', '13:30', false],
    // no window
    ['2026-01-15T21:00:00Z', null, '07:00', false],
    ['2026-01-15T21:00:00Z', '22:00', null, false],
    ['2026-01-15T21:00:00Z', null, null, false],
    ['2026-01-15T21:00:00Z', '22:00', '22:00', false],
    ['2026-01-15T21:00:00Z', '22:00', '24:00', false],
    ['2026-01-15T21:00:00Z', '22:00', '7:00', false],
  ])('at %s with %j–%j: %j', (iso, start, end, expected) => {
    expect(inQuietHours(at(iso), start, end, BERLIN)).toBe(expected);
  });

  it.each([
    // 2026-03-29, spring forward at 01:00Z (02:00 CET → 03:00 CEST); quiet 01:30–03:30
    ['2026-03-29T00:29:00Z', false], // 01:29 CET
    ['2026-03-29T00:30:00Z', true], // 01:30 CET
    ['2026-03-29T00:59:00Z', true], // 01:59 CET
    ['2026-03-29T01:00:00Z', true], // 03:00 CEST
    ['2026-03-29T01:29:00Z', true], // 03:29 CEST
    ['2026-03-29T01:30:00Z', false], // 03:30 CEST
    // 2026-10-25, fall back at 01:00Z (03:00 CEST → 02:00 CET); quiet 01:30–03:30
    ['2026-10-24T23:29:00Z', false], // 01:29 CEST
    ['2026-10-24T23:30:00Z', true], // 01:30 CEST
    ['2026-10-25T00:59:00Z', true], // 02:59 CEST
    ['2026-10-25T01:00:00Z', true], // 02:00 CET
    ['2026-10-25T02:29:00Z', true], // 03:29 CET
    ['2026-10-25T02:30:00Z', false], // 03:30 CET
  ])('DST day: quiet 01:30–03:30 Berlin at %s is %j', (iso, expected) => {
    expect(inQuietHours(at(iso), '01:30', '03:30', BERLIN)).toBe(expected);
  });

  it.each([
    ['America/New_York', '2026-01-16T02:59:00Z', false], // 21:59 EST
    ['America/New_York', '2026-01-16T03:00:00Z', true], // 22:00 EST
    ['Etc/UTC', '2026-01-15T22:00:00Z', true],
    ['Etc/UTC', '2026-01-15T07:00:00Z', false],
  ])('evaluates 22:00–07:00 in %s at %s: %j', (zone, iso, expected) => {
    expect(inQuietHours(at(iso), '22:00', '07:00', zone)).toBe(expected);
  });
});
