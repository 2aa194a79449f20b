import { describe, expect, it } from '@jest/globals';
import type { GroupwareInstance } from '../crds/types.js';
import { envReference, occJob, occJobName, occScript, shellQuote } from './occ-job.js';

const instance = {
  apiVersion: 'k8s.neutral.com/v1alpha1',
  kind: 'GroupwareInstance',
  metadata: { name: 'team', namespace: 'tenant-a', uid: 'uid-1' },
} as GroupwareInstance;

describe('occ Jobs', () => {
  it('names a Job after the instance and a hash of its commands', () => {
    const name = occJobName('team', [['app:enable', 'calendar']]);
    expect(name).toMatch(/^team-occ-[0-9a-f]{10}$/);
    expect(occJobName('team', [['app:enable', 'calendar']])).toBe(name);
    expect(occJobName('team', [['app:enable', 'deck']])).not.toBe(name);
  });

  it('keeps long names within 63 characters', () => {
    const name = occJobName('a'.repeat(70), [['app:list']]);
    expect(name).toHaveLength(63);
    expect(name).toMatch(/^a+-occ-[0-9a-f]{10}$/);
  });

  it('quotes arguments for the shell and stops at the first failure', () => {
    expect(shellQuote('calendar')).toBe('calendar');
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(
      occScript([
        ['app:enable', 'calendar'],
        ['config:app:set', 'spreed', 'a b'],
      ]),
    ).toBe(
      [
        'set -e',
        'php /var/www/html/occ --no-interaction app:enable calendar',
        "php /var/www/html/occ --no-interaction config:app:set spreed 'a b'",
      ].join('\n'),
    );
  });

  it('reads environment references unquoted, so the value stays out of the Job spec', () => {
    expect(
      occScript([['talk:signaling:add', 'wss://hpb.example/a b', envReference('TALK_SECRET')]]),
    ).toBe(
      [
        'set -e',
        `php /var/www/html/occ --no-interaction talk:signaling:add 'wss://hpb.example/a b' "$TALK_SECRET"`,
      ].join('\n'),
    );
    expect(() => envReference('TALK SECRET; rm -rf /')).toThrow('not an environment variable');
  });

  it('gives a new name for a new revision of what the commands read', () => {
    const commands = [['talk:signaling:add', 'wss://hpb', envReference('TALK_SECRET')]];
    expect(occJobName('team', commands, '41')).toMatch(/^team-occ-[0-9a-f]{10}$/);
    expect(occJobName('team', commands, '41')).toBe(occJobName('team', commands, '41'));
    expect(occJobName('team', commands, '42')).not.toBe(occJobName('team', commands, '41'));
    expect(occJobName('team', [['app:list']], undefined)).toBe(occJobName('team', [['app:list']]));
    const job = occJob({ instance, purpose: 'signaling', commands, image: 'nc', revision: '42' });
    expect(job.metadata!.name).toBe(occJobName('team', commands, '42'));
  });

  it('runs on the instance volume next to its pods, owned by the instance', () => {
    const job = occJob({
      instance,
      purpose: 'apps',
      commands: [['app:enable', 'calendar']],
      image: 'nextcloud:29.0.16',
    });
    expect(job.metadata!.namespace).toBe('tenant-a');
    expect(job.metadata!.labels).toEqual({
      'app.kubernetes.io/managed-by': 'groupware-operator',
      'k8s.neutral.com/instance': 'team',
      'k8s.neutral.com/occ-purpose': 'apps',
    });
    expect(job.metadata!.ownerReferences).toEqual([
      {
        apiVersion: 'k8s.neutral.com/v1alpha1',
        kind: 'GroupwareInstance',
        name: 'team',
        uid: 'uid-1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const pod = job.spec!.template.spec!;
    expect(pod.securityContext).toEqual({ runAsUser: 33, runAsGroup: 33, fsGroup: 33 });
    expect(pod.volumes).toEqual([
      { name: 'nextcloud-main', persistentVolumeClaim: { claimName: 'team-nextcloud' } },
    ]);
    expect(pod.containers[0]!.image).toBe('nextcloud:29.0.16');
    expect(pod.containers[0]!.volumeMounts).toContainEqual({
      name: 'nextcloud-main',
      mountPath: '/var/www/html/config',
      subPath: 'config',
    });
    expect(
      pod.affinity!.podAffinity!.requiredDuringSchedulingIgnoredDuringExecution![0]!.labelSelector,
    ).toEqual({
      matchLabels: { 'app.kubernetes.io/name': 'nextcloud', 'app.kubernetes.io/instance': 'team' },
    });
  });
});
