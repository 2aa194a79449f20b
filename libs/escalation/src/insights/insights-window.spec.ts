import { describe, expect, it } from '@jest/globals';
import { insightsWindow, parseInsightsDays, share } from './insights-window.js';

describe('parseInsightsDays', () => {
  it('defaults to 7 and accepts exactly 7, 30 and 90', () => {
    expect(parseInsightsDays(undefined)).toBe(7);
    expect(parseInsightsDays('7')).toBe(7);
    expect(parseInsightsDays('30')).toBe(30);
    expect(parseInsightsDays('90')).toBe(90);
    expect(parseInsightsDays(['30', '7'])).toBe(30);
  });

  it.each(['', '0', '1', '14', '07', '7.0', ' 7', '90d', 'seven', '-7', '1e1'])(
    'refuses %j with invalid_days',
    (value) => {
      expect(() => parseInsightsDays(value)).toThrow(
        expect.objectContaining({ status: 422, code: 'invalid_days' }),
      );
    },
  );

  it('refuses an object (days[x]=7)', () => {
    expect(() => parseInsightsDays({ x: '7' })).toThrow(
      expect.objectContaining({ code: 'invalid_days' }),
    );
  });
});

describe('share', () => {
  it('rounds half up to four decimals and is 0 for nothing', () => {
    expect(share(0, 0)).toBe(0);
    expect(share(1, 3)).toBe(0.3333);
    expect(share(2, 3)).toBe(0.6667);
    expect(share(1, 8)).toBe(0.125);
    expect(share(1, 20000)).toBe(0.0001);
    expect(share(1, 20001)).toBe(0);
    expect(share(5, 5)).toBe(1);
  });
});

describe('insightsWindow', () => {
  it('starts days x 24 h before now; whole days from the next UTC midnight', () => {
    expect(insightsWindow(new Date('2026-03-10T12:00:00.000Z'), 7)).toEqual({
      since: new Date('2026-03-03T12:00:00.000Z'),
      fullDaysFrom: new Date('2026-03-04T00:00:00.000Z'),
    });
    expect(insightsWindow(new Date('2026-03-31T23:59:59.999Z'), 30)).toEqual({
      since: new Date('2026-03-01T23:59:59.999Z'),
      fullDaysFrom: new Date('2026-03-02T00:00:00.000Z'),
    });
  });

  it('reads the first day raw in full when the window starts at midnight', () => {
    expect(insightsWindow(new Date('2026-03-10T00:00:00.000Z'), 90)).toEqual({
      since: new Date('2025-12-10T00:00:00.000Z'),
      fullDaysFrom: new Date('2025-12-11T00:00:00.000Z'),
    });
  });
});
