import { describe, expect, it } from '@jest/globals';
import type { Groupware, GroupwareInstance } from '../crds/types.js';
import { groupwarePhase, groupwareStatus } from './groupware-status.js';

const NOW = new Date('2024-05-03T06:00:00Z');

function instance(status: GroupwareInstance['status']): GroupwareInstance {
  return {
    apiVersion: 'k8s.neutral.com/v1alpha1',
    kind: 'GroupwareInstance',
    metadata: { name: 'i', namespace: 'ns' },
    status,
  };
}

const groupware: Groupware = {
  apiVersion: 'k8s.neutral.com/v1alpha1',
  kind: 'Groupware',
  metadata: { name: 'gw', namespace: 'tenant' },
};

describe('groupware status', () => {
  it('maps the instance phases onto Pending, Creating, Ready and Failed', () => {
    expect(groupwarePhase(undefined)).toBe('Pending');
    expect(groupwarePhase(instance(undefined))).toBe('Pending');
    expect(groupwarePhase(instance({ phase: 'Pending' }))).toBe('Pending');
    expect(groupwarePhase(instance({ phase: 'Creating' }))).toBe('Creating');
    expect(groupwarePhase(instance({ phase: 'Ready' }))).toBe('Ready');
    expect(groupwarePhase(instance({ phase: 'Updating' }))).toBe('Ready');
    expect(groupwarePhase(instance({ phase: 'Failed' }))).toBe('Failed');
  });

  it('removes url and claimedFromPool with null when the instance has none', () => {
    expect(groupwareStatus(groupware, { instance: instance({ phase: 'Creating' }) }, NOW)).toEqual({
      phase: 'Creating',
      instanceRef: { namespace: 'ns', name: 'i' },
      url: null,
      claimedFromPool: null,
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'InstanceNotReady',
          message: 'instance ns/i is Creating',
          lastTransitionTime: '2024-05-03T06:00:00Z',
        },
      ],
    });
  });

  it('names the failure cause of the instance: a False Ready condition, else a known reason', () => {
    const failed = (conditions: NonNullable<GroupwareInstance['status']>['conditions']) =>
      groupwareStatus(groupware, { instance: instance({ phase: 'Failed', conditions }) }, NOW);
    const condition = (type: string, status: 'True' | 'False', reason: string) => ({
      type,
      status,
      reason,
      message: `${reason} detail`,
      lastTransitionTime: '2024-05-03T06:00:00Z',
    });
    expect(failed([condition('Database', 'True', 'DatabaseFailed')])).toMatchObject({
      conditions: [{ message: 'instance ns/i failed: DatabaseFailed: DatabaseFailed detail' }],
    });
    expect(
      failed([condition('Other', 'True', 'Fine'), condition('Ready', 'False', 'OccFailed')]),
    ).toMatchObject({
      conditions: [{ message: 'instance ns/i failed: OccFailed: OccFailed detail' }],
    });
    expect(failed([])).toMatchObject({
      phase: 'Failed',
      conditions: [{ reason: 'InstanceFailed', message: 'instance ns/i failed' }],
    });
  });
});
