import { describe, expect, it } from '@jest/globals';
import { nextPosition } from './escalation-engine.js';

const DUE = new Date('2026-03-02T09:00:00Z');
const at = (seconds: number) => new Date(DUE.getTime() + seconds * 1000);

describe('nextPosition', () => {
  const chain = { steps_count: 3, repeats: 1, first_delay: 30 };

  it('moves to the next step, due its delay after this step was due', () => {
    expect(
      nextPosition({ ...chain, step_index: 0, repeat_count: 0, next_delay: 300 }, DUE),
    ).toEqual({ state: 'active', repeat_count: 0, step_index: 1, next_run_at: at(300) });
  });

  it('starts the next pass with the first step after the last one while passes remain', () => {
    expect(
      nextPosition({ ...chain, step_index: 2, repeat_count: 0, next_delay: null }, DUE),
    ).toEqual({ state: 'active', repeat_count: 1, step_index: 0, next_run_at: at(30) });
  });

  it('is exhausted after the last step of the last pass', () => {
    expect(
      nextPosition({ ...chain, step_index: 2, repeat_count: 1, next_delay: null }, DUE),
    ).toEqual({ state: 'exhausted', repeat_count: 1, step_index: 2, next_run_at: null });
  });

  it('is exhausted after a single step without repeats', () => {
    expect(
      nextPosition(
        {
          steps_count: 1,
          repeats: 0,
          first_delay: 0,
          step_index: 0,
          repeat_count: 0,
          next_delay: null,
        },
        DUE,
      ),
    ).toMatchObject({ state: 'exhausted', next_run_at: null });
  });
});
