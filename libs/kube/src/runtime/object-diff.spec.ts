import { describe, expect, it } from '@jest/globals';
import { differsFrom, quantityValue } from './object-diff.js';

describe('differsFrom', () => {
  it('ignores fields the live object has and desired does not set', () => {
    expect(
      differsFrom(
        { spec: { schedule: '0 3 * * *' } },
        { spec: { schedule: '0 3 * * *', concurrencyPolicy: 'Allow' }, status: { active: [] } },
      ),
    ).toBe(false);
  });

  it('sees a changed, missing or extra-typed field', () => {
    expect(
      differsFrom({ spec: { schedule: '0 4 * * *' } }, { spec: { schedule: '0 3 * * *' } }),
    ).toBe(true);
    expect(differsFrom({ spec: { suspend: true } }, { spec: {} })).toBe(true);
    expect(differsFrom({ spec: { suspend: false } }, { spec: { suspend: 'false' } })).toBe(true);
    expect(differsFrom({ spec: {} }, { spec: [] })).toBe(true);
  });

  it('compares arrays element by element at the same length, elements as subsets', () => {
    const live = {
      containers: [
        {
          name: 'restic',
          image: 'r:1',
          imagePullPolicy: 'Always',
          terminationMessagePath: '/dev/termination-log',
        },
      ],
    };
    expect(differsFrom({ containers: [{ name: 'restic', image: 'r:1' }] }, live)).toBe(false);
    expect(differsFrom({ containers: [{ name: 'restic', image: 'r:2' }] }, live)).toBe(true);
    expect(differsFrom({ containers: [] }, live)).toBe(true);
    expect(differsFrom({ args: ['a', 'b'] }, { args: ['b', 'a'] })).toBe(true);
  });

  it('reads null as "absent"', () => {
    expect(differsFrom({ spec: { affinity: null } }, { spec: {} })).toBe(false);
    expect(differsFrom({ spec: { affinity: null } }, { spec: { affinity: {} } })).toBe(true);
  });

  it('compares resource quantities by value, as the API server rewrites them', () => {
    expect(differsFrom({ cpu: '1000m' }, { cpu: '1' })).toBe(false);
    expect(differsFrom({ cpu: '0.5' }, { cpu: '500m' })).toBe(false);
    expect(differsFrom({ memory: '1Gi' }, { memory: '1024Mi' })).toBe(false);
    expect(differsFrom({ memory: '1G' }, { memory: '1000M' })).toBe(false);
    expect(differsFrom({ memory: '1Gi' }, { memory: '1G' })).toBe(true);
    expect(differsFrom({ cpu: 2 }, { cpu: '2' })).toBe(false);
    expect(differsFrom({ name: 'daily' }, { name: 'weekly' })).toBe(true);
  });
});

describe('quantityValue', () => {
  it.each([
    ['5Gi', 5 * 2 ** 30],
    ['250m', 0.25],
    ['1.5', 1.5],
    ['2k', 2000],
    ['1e3', 1000],
    ['3Ki', 3072],
  ])('reads %s', (text, value) => {
    expect(quantityValue(text)).toBe(value);
  });

  it('refuses what is not a quantity', () => {
    expect(quantityValue('0 3 * * *')).toBeUndefined();
    expect(quantityValue('Gi')).toBeUndefined();
    expect(quantityValue('')).toBeUndefined();
  });
});
