import { describe, expect, it } from '@jest/globals';
import type { GroupwareInstanceSpec, GroupwareInstanceStatus } from '../crds/types.js';
import { buildStatus, instanceUrl, nextPhase } from './instance-status.js';

const T0 = new Date('2024-05-03T06:00:00Z');
const T1 = new Date('2024-05-03T07:00:00Z');

describe('GroupwareInstance phases', () => {
  it('is Failed on any failure, Ready when serving, Updating after having served', () => {
    const failure = { cause: 'ReleaseFailed' as const, message: 'x' };
    expect(nextPhase('Ready', { serving: true, failure })).toBe('Failed');
    expect(nextPhase('Creating', { serving: true })).toBe('Ready');
    expect(nextPhase(undefined, { serving: false })).toBe('Creating');
    expect(nextPhase('Pending', { serving: false })).toBe('Creating');
    expect(nextPhase('Ready', { serving: false })).toBe('Updating');
    expect(nextPhase('Updating', { serving: false })).toBe('Updating');
    expect(nextPhase('Failed', { serving: false })).toBe('Creating');
    expect(nextPhase('Failed', { serving: false, installed: true })).toBe('Updating');
  });

  it('serves https with TLS, http without, nothing without an ingress', () => {
    const spec = (ingress: GroupwareInstanceSpec['ingress']) =>
      ({ ingress }) as GroupwareInstanceSpec;
    expect(
      instanceUrl(spec({ enabled: true, host: 'a.example.com', tls: { enabled: true } })),
    ).toBe('https://a.example.com');
    expect(instanceUrl(spec({ enabled: true, host: 'a.example.com' }))).toBe(
      'http://a.example.com',
    );
    expect(instanceUrl(spec({ enabled: false, host: 'a.example.com' }))).toBeUndefined();
    expect(instanceUrl(spec(undefined))).toBeUndefined();
  });
});

describe('GroupwareInstance status', () => {
  it('keeps a cause condition while it holds and drops it after, Ready following', () => {
    const failed = buildStatus({
      previous: undefined,
      phase: 'Failed',
      observation: { serving: false, failure: { cause: 'OccFailed', message: 'Job failed' } },
      generation: 3,
      url: undefined,
      now: T0,
    });
    expect(failed).toEqual({
      phase: 'Failed',
      url: null,
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'OccFailed',
          message: 'Job failed',
          lastTransitionTime: '2024-05-03T06:00:00Z',
          observedGeneration: 3,
        },
        {
          type: 'OccFailed',
          status: 'True',
          reason: 'OccFailed',
          message: 'Job failed',
          lastTransitionTime: '2024-05-03T06:00:00Z',
          observedGeneration: 3,
        },
      ],
    });
    const ready = buildStatus({
      previous: failed as GroupwareInstanceStatus,
      phase: 'Ready',
      observation: { serving: true, apps: { calendar: true } },
      generation: 3,
      url: 'https://a.example.com',
      now: T1,
    });
    expect(ready).toMatchObject({
      phase: 'Ready',
      url: 'https://a.example.com',
      apps: { calendar: true },
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Ready',
          lastTransitionTime: '2024-05-03T07:00:00Z',
        },
      ],
    });
  });

  it('keeps the transition time of a condition whose status stays', () => {
    const first = buildStatus({
      previous: undefined,
      phase: 'Creating',
      observation: { serving: false },
      generation: 1,
      url: undefined,
      now: T0,
    });
    const again = buildStatus({
      previous: first as GroupwareInstanceStatus,
      phase: 'Updating',
      observation: { serving: false, upgradeBlocked: 'skip' },
      generation: 2,
      url: undefined,
      now: T1,
    });
    expect(again.conditions as Array<{ type: string; lastTransitionTime: string }>).toEqual([
      expect.objectContaining({
        type: 'Ready',
        reason: 'Updating',
        lastTransitionTime: '2024-05-03T06:00:00Z',
      }),
      expect.objectContaining({
        type: 'UpgradeBlocked',
        status: 'True',
        lastTransitionTime: '2024-05-03T07:00:00Z',
      }),
    ]);
  });
});
