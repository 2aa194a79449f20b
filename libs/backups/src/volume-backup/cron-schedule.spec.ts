import { describe, expect, it } from '@jest/globals';
import { cronScheduleProblem } from './cron-schedule.js';

describe('cronScheduleProblem', () => {
  it.each([
    '0 3 * * *',
    '*/15 * * * *',
    '0 0-23/2 * * *',
    '5,35 1 1-15 jan-mar mon-fri',
    '0 4 ? * SUN',
    '  0   3 * * *  ',
    '@daily',
    '@Hourly',
    '@every 1h30m',
  ])('accepts %j', (schedule) => {
    expect(cronScheduleProblem(schedule)).toBeUndefined();
  });

  it.each([
    ['', 'the schedule is empty'],
    ['0 3 * *', 'expected 5 fields (minute hour day-of-month month day-of-week), got 4'],
    ['0 3 * * * *', 'expected 5 fields (minute hour day-of-month month day-of-week), got 6'],
    ['60 3 * * *', 'minute: 60 is outside 0-59'],
    ['0 24 * * *', 'hour: 24 is outside 0-23'],
    ['0 3 0 * *', 'day of month: 0 is outside 1-31'],
    ['0 3 * 13 *', 'month: 13 is outside 1-12'],
    ['0 3 * * 7', 'day of week: 7 is outside 0-6'],
    ['0 3 * * funday', 'day of week: "funday" is not a day of week value'],
    ['*/0 * * * *', 'minute: a step must be at least 1'],
    ['*/x * * * *', 'minute: step "x" is not a number'],
    ['1/2/3 * * * *', 'minute: "1/2/3" has more than one step'],
    ['10-5 * * * *', 'minute: range "10-5" ends before it starts'],
    ['1-2-3 * * * *', 'minute: "1-2-3" is not a range'],
    ['TZ=UTC 0 3 * * *', 'time zones cannot be set in the schedule'],
    ['@fortnightly', 'unknown descriptor "@fortnightly"'],
    ['@every soon', 'unknown descriptor "@every soon"'],
  ])('refuses %j: %s', (schedule, problem) => {
    expect(cronScheduleProblem(schedule)).toBe(problem);
  });
});
