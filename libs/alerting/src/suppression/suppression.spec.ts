import { describe, expect, it } from '@jest/globals';
import { decideSuppressions, isActive } from './suppression.js';

const alerts = [
  { id: 'a1', labels: { env: 'prod', service: 'db' } },
  { id: 'a2', labels: { env: 'staging', service: 'web' } },
  { id: 'a3', labels: { env: 'prod', service: 'web' } },
];

describe('decideSuppressions', () => {
  it('suppresses nothing without silences and windows', () => {
    expect(decideSuppressions(alerts, new Map(), [])).toEqual(new Map());
  });

  it('silences only the silenced alerts', () => {
    expect(decideSuppressions(alerts, new Map([['a2', 's1']]), [])).toEqual(
      new Map([['a2', { kind: 'silenced', silenceId: 's1' }]]),
    );
  });

  it('a window without matchers covers every alert', () => {
    const result = decideSuppressions(alerts, new Map(), [{ id: 'w1', matchers: [] }]);
    expect([...result.keys()]).toEqual(['a1', 'a2', 'a3']);
    expect(result.get('a3')).toEqual({ kind: 'maintenance', maintenanceWindowId: 'w1' });
  });

  it('a window with matchers covers the alerts passing all of them', () => {
    const result = decideSuppressions(alerts, new Map(), [
      {
        id: 'w1',
        matchers: [
          { label: 'env', op: 'eq', value: 'prod' },
          { label: 'service', op: 're', value: 'w.*' },
        ],
      },
    ]);
    expect(result).toEqual(new Map([['a3', { kind: 'maintenance', maintenanceWindowId: 'w1' }]]));
  });

  it('re matchers are anchored: a partial match does not pass', () => {
    const result = decideSuppressions(alerts, new Map(), [
      { id: 'w1', matchers: [{ label: 'env', op: 're', value: 'pro' }] },
    ]);
    expect(result.size).toBe(0);
  });

  it('a matcher on a missing label compares against the empty string', () => {
    const result = decideSuppressions(alerts, new Map(), [
      { id: 'w1', matchers: [{ label: 'team', op: 'eq', value: '' }] },
    ]);
    expect(result.size).toBe(3);
  });

  it('a silence wins over a window, and the first matching window wins', () => {
    const result = decideSuppressions(alerts, new Map([['a1', 's1']]), [
      { id: 'w-staging', matchers: [{ label: 'env', op: 'eq', value: 'staging' }] },
      { id: 'w-all', matchers: [] },
    ]);
    expect(result).toEqual(
      new Map([
        ['a1', { kind: 'silenced', silenceId: 's1' }],
        ['a2', { kind: 'maintenance', maintenanceWindowId: 'w-staging' }],
        ['a3', { kind: 'maintenance', maintenanceWindowId: 'w-all' }],
      ]),
    );
  });

  it('a window whose stored regex no longer compiles suppresses nothing', () => {
    const result = decideSuppressions(alerts, new Map(), [
      { id: 'broken', matchers: [{ label: 'env', op: 're', value: '(' }] },
    ]);
    expect(result.size).toBe(0);
  });
});

describe('isActive', () => {
  const period = {
    starts_at: new Date('2026-01-01T10:00:00Z'),
    ends_at: new Date('2026-01-01T12:00:00Z'),
  };
  it('is half-open: the start counts, the end does not', () => {
    expect(isActive(period, new Date('2026-01-01T09:59:59.999Z'))).toBe(false);
    expect(isActive(period, new Date('2026-01-01T10:00:00Z'))).toBe(true);
    expect(isActive(period, new Date('2026-01-01T11:59:59.999Z'))).toBe(true);
    expect(isActive(period, new Date('2026-01-01T12:00:00Z'))).toBe(false);
  });
});
