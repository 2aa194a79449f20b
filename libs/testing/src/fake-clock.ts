import { Clock } from '@platform/core';

/** A clock that only moves when the test says so. */
export class FakeClock extends Clock {
  private current: number;

  constructor(start: Date | string = new Date()) {
    super();
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(to: Date | string): void {
    this.current = new Date(to).getTime();
  }

  advance(by: {
    ms?: number;
    seconds?: number;
    minutes?: number;
    hours?: number;
    days?: number;
  }): Date {
    this.current +=
      (by.ms ?? 0) +
      (by.seconds ?? 0) * 1000 +
      (by.minutes ?? 0) * 60_000 +
      (by.hours ?? 0) * 3_600_000 +
      (by.days ?? 0) * 86_400_000;
    return this.now();
  }
}
