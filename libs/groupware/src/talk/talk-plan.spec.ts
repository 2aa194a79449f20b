import { describe, expect, it } from '@jest/globals';
import type { GroupwareInstance } from '../crds/types.js';
import { planInstances, type Registration, sameRegistration } from './talk-plan.js';

function instance(
  key: string,
  options: { phase?: 'Ready' | 'Creating' | 'Updating'; spreed?: boolean; deleting?: boolean } = {},
): GroupwareInstance {
  const [namespace, name] = key.split('/');
  return {
    apiVersion: 'k8s.neutral.com/v1alpha1',
    kind: 'GroupwareInstance',
    metadata: {
      namespace,
      name,
      ...(options.deleting ? { deletionTimestamp: new Date('2024-05-03T06:00:00Z') } : {}),
    },
    spec: { apps: { spreed: { enabled: options.spreed ?? true } } },
    status: { phase: options.phase ?? 'Ready' },
  } as GroupwareInstance;
}

const registration = (key: string): Registration => ({ instance: key, url: 'wss://a' });
const summary = (actions: ReturnType<typeof planInstances>) =>
  actions.map((action) => `${action.type} ${action.key}`);

describe('Talk registration plan', () => {
  it('registers Ready instances running Talk, and only those', () => {
    const actions = planInstances(
      [
        instance('b/ready'),
        instance('a/creating', { phase: 'Creating' }),
        instance('c/no-talk', { spreed: false }),
        instance('d/ready'),
      ],
      [],
      false,
    );
    expect(summary(actions)).toEqual(['register b/ready', 'register d/ready']);
  });

  it('keeps a registration while the instance is not Ready, passing the previous one on', () => {
    const actions = planInstances(
      [instance('a/updating', { phase: 'Updating' }), instance('b/ready')],
      [registration('a/updating'), registration('b/ready')],
      false,
    );
    expect(actions).toEqual([
      expect.objectContaining({
        type: 'keep',
        key: 'a/updating',
        previous: registration('a/updating'),
      }),
      expect.objectContaining({
        type: 'register',
        key: 'b/ready',
        previous: registration('b/ready'),
      }),
    ]);
  });

  it('unregisters instances that stopped running Talk, and every one when deleting', () => {
    const instances = [instance('a/off', { spreed: false }), instance('b/on')];
    const registrations = [registration('a/off'), registration('b/on')];
    expect(summary(planInstances(instances, registrations, false))).toEqual([
      'unregister a/off',
      'register b/on',
    ]);
    expect(summary(planInstances(instances, registrations, true))).toEqual([
      'unregister a/off',
      'unregister b/on',
    ]);
    expect(summary(planInstances([instance('c/never')], [], true))).toEqual([]);
  });

  it('forgets instances that are gone or being deleted', () => {
    const actions = planInstances(
      [instance('a/going', { deleting: true })],
      [registration('a/going'), registration('b/gone')],
      false,
    );
    expect(summary(actions)).toEqual(['forget a/going', 'forget b/gone']);
  });

  it('compares registrations by URL, TLS verification (default true) and secret version', () => {
    const wanted: Registration = {
      instance: 'a/x',
      url: 'wss://a',
      verifyTls: true,
      secretVersion: '7',
    };
    expect(sameRegistration(undefined, wanted)).toBe(false);
    expect(sameRegistration({ instance: 'a/x', url: 'wss://a', secretVersion: '7' }, wanted)).toBe(
      true,
    );
    expect(sameRegistration({ ...wanted, url: 'wss://b' }, wanted)).toBe(false);
    expect(sameRegistration({ ...wanted, verifyTls: false }, wanted)).toBe(false);
    expect(sameRegistration({ ...wanted, secretVersion: '8' }, wanted)).toBe(false);
  });
});
