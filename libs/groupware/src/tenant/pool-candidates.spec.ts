import { describe, expect, it } from '@jest/globals';
import { ObjectStore } from '@platform/kube';
import { CLAIMED_BY_LABEL } from '../crds/other-kinds.js';
import type { Groupware, GroupwareInstance, GroupwarePool } from '../crds/types.js';
import { POOL_LABEL } from '../pools/pool-census.js';
import { claimant, claimValue, poolCandidates, versionMatches } from './pool-candidates.js';

const meta = (name: string, namespace?: string) => ({
  apiVersion: 'k8s.neutral.com/v1alpha1',
  metadata: { name, ...(namespace ? { namespace } : {}) },
});

function pool(name: string, labels: Record<string, string>, profile = 'standard'): GroupwarePool {
  const base = meta(name);
  return {
    ...base,
    kind: 'GroupwarePool',
    metadata: { ...base.metadata, labels },
    spec: { profile, size: 1, namespace: `ns-${name}` },
  };
}

function instance(
  poolName: string,
  name: string,
  created: string,
  extra: {
    phase?: 'Ready' | 'Creating';
    version?: string;
    resolved?: string;
    claimed?: boolean;
  } = {},
): GroupwareInstance {
  return {
    apiVersion: 'k8s.neutral.com/v1alpha1',
    kind: 'GroupwareInstance',
    metadata: {
      name,
      namespace: `ns-${poolName}`,
      creationTimestamp: created as unknown as Date,
      labels: {
        [POOL_LABEL]: poolName,
        ...(extra.claimed ? { [CLAIMED_BY_LABEL]: 'x.y' } : {}),
      },
    },
    spec: (extra.version ? { version: extra.version } : {}) as GroupwareInstance['spec'],
    status: {
      phase: extra.phase ?? 'Ready',
      ...(extra.resolved
        ? {
            versionResolution: {
              requestedVersion: extra.version,
              resolvedVersion: extra.resolved,
              chartVersion: '5.0.0',
              resolvedBy: 'builtin' as const,
            },
          }
        : {}),
    },
  };
}

function groupware(spec: Record<string, unknown>): Groupware {
  return { ...meta('gw', 'tenant'), kind: 'Groupware', spec: spec as Groupware['spec'] };
}

describe('claim label', () => {
  it('is <namespace>.<name> and splits back at the first dot', () => {
    expect(claimValue(groupware({ profile: 'p' }))).toBe('tenant.gw');
    expect(claimant('tenant.mail.example')).toEqual({ namespace: 'tenant', name: 'mail.example' });
    expect(claimant('nodot')).toBeUndefined();
    expect(claimant('.name')).toBeUndefined();
    expect(claimant('namespace.')).toBeUndefined();
  });
});

describe('versionMatches', () => {
  it('matches a major to its patches, an exact version to itself, and anything when unset', () => {
    const resolved = instance('a', 'i', '', { version: '29', resolved: '29.0.16' });
    expect(versionMatches(undefined, resolved)).toBe(true);
    expect(versionMatches('29', resolved)).toBe(true);
    expect(versionMatches('29.0.16', resolved)).toBe(true);
    expect(versionMatches('29.0.15', resolved)).toBe(false);
    expect(versionMatches('30', resolved)).toBe(false);
    expect(versionMatches('2', resolved)).toBe(false);
    expect(versionMatches('29', instance('a', 'j', '', { version: '29.0.3' }))).toBe(true);
    expect(versionMatches('29', instance('a', 'k', ''))).toBe(false);
  });
});

describe('poolCandidates', () => {
  const pools = [
    pool('b-pool', { region: 'eu' }),
    pool('a-pool', { region: 'eu', tier: 'gold' }),
    pool('us-pool', { region: 'us' }),
    pool('premium-pool', { region: 'eu' }, 'premium'),
  ];
  const instances = ObjectStore.of([
    instance('a-pool', 'a-new', '2024-01-02T00:00:00Z'),
    instance('a-pool', 'a-old', '2024-01-01T00:00:00Z'),
    instance('a-pool', 'a-creating', '2024-01-01T00:00:00Z', { phase: 'Creating' }),
    instance('a-pool', 'a-claimed', '2024-01-01T00:00:00Z', { claimed: true }),
    instance('b-pool', 'b-one', '2024-01-01T00:00:00Z'),
    instance('us-pool', 'us-one', '2024-01-01T00:00:00Z'),
    instance('premium-pool', 'premium-one', '2024-01-01T00:00:00Z'),
  ]);
  const candidates = (spec: Record<string, unknown>) =>
    poolCandidates(groupware(spec), pools, instances).map(
      (candidate) => `${candidate.pool}/${candidate.instance.metadata.name}`,
    );

  it('lists Ready, unclaimed instances of pools with matching labels and profile, by pool then age', () => {
    expect(
      candidates({ profile: 'standard', poolSelector: { matchLabels: { region: 'eu' } } }),
    ).toEqual(['a-pool/a-old', 'a-pool/a-new', 'b-pool/b-one']);
    expect(
      candidates({ profile: 'standard', poolSelector: { matchLabels: { tier: 'gold' } } }),
    ).toEqual(['a-pool/a-old', 'a-pool/a-new']);
    expect(candidates({ profile: 'premium', poolSelector: { matchLabels: {} } })).toEqual([
      'premium-pool/premium-one',
    ]);
  });

  it('lists nothing without a poolSelector', () => {
    expect(candidates({ profile: 'standard' })).toEqual([]);
  });

  it('lists nothing when <namespace>.<name> is longer than a label value may be', () => {
    const spec = { profile: 'standard', poolSelector: { matchLabels: { region: 'eu' } } };
    const named = (name: string) => {
      const object = groupware(spec);
      object.metadata.name = name;
      return poolCandidates(object, pools, instances).length;
    };
    // "tenant." is 7 characters: a 56-character name makes 63.
    expect(named('n'.repeat(56))).toBe(3);
    expect(named('n'.repeat(57))).toBe(0);
  });
});
