/**
 * Every time-dependent rule asks the clock instead of `new Date()`, so tests can move
 * time instead of sleeping.
 */
export abstract class Clock {
  abstract now(): Date;

  nowMs(): number {
    return this.now().getTime();
  }
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
