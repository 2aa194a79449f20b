import { describe, expect, it } from '@jest/globals';
import { durationBetween, formatDuration } from './duration.js';

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [999, '0s'],
    [45_000, '45s'],
    [60_000, '1m0s'],
    [90_000, '1m30s'],
    [3_600_000, '1h0m0s'],
    [3_600_000 + 5_000, '1h0m5s'],
    [26 * 3_600_000 + 61_000, '26h1m1s'],
    [-5_000, '0s'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('durationBetween', () => {
  it('measures between two date-times', () => {
    expect(durationBetween('2024-05-03T06:00:00Z', '2024-05-03T06:01:30Z')).toBe('1m30s');
  });

  it('is undefined when either end is missing or unreadable', () => {
    expect(durationBetween(undefined, '2024-05-03T06:01:30Z')).toBeUndefined();
    expect(durationBetween('2024-05-03T06:00:00Z', undefined)).toBeUndefined();
    expect(durationBetween('yesterday', '2024-05-03T06:01:30Z')).toBeUndefined();
  });
});
