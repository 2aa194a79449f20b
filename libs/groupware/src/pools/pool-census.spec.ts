import { describe, expect, it } from '@jest/globals';
import { CLAIMED_BY_LABEL } from '../crds/other-kinds.js';
import type { GroupwareInstance } from '../crds/types.js';
import { poolCensus, surplusInstances } from './pool-census.js';

function instance(
  name: string,
  created: string,
  options: { phase?: 'Ready' | 'Creating' | 'Failed'; claimed?: boolean; deleting?: boolean } = {},
): GroupwareInstance {
  return {
    apiVersion: 'k8s.neutral.com/v1alpha1',
    kind: 'GroupwareInstance',
    metadata: {
      name,
      namespace: 'pool',
      creationTimestamp: created as unknown as Date,
      labels: options.claimed ? { [CLAIMED_BY_LABEL]: 'tenant.gw' } : {},
      ...(options.deleting ? { deletionTimestamp: '2024-05-03T06:00:00Z' as unknown as Date } : {}),
    },
    status: options.phase ? { phase: options.phase } : undefined,
  };
}

const names = (instances: GroupwareInstance[]) => instances.map((entry) => entry.metadata.name);

describe('pool census', () => {
  const all = [
    instance('ready-old', '2024-01-01T00:00:00Z', { phase: 'Ready' }),
    instance('ready-new', '2024-01-03T00:00:00Z', { phase: 'Ready' }),
    instance('creating-old', '2024-01-01T00:00:00Z', { phase: 'Creating' }),
    instance('failed-new', '2024-01-04T00:00:00Z', { phase: 'Failed' }),
    instance('unreported', '2024-01-02T00:00:00Z'),
    instance('claimed', '2024-01-01T00:00:00Z', { phase: 'Ready', claimed: true }),
    instance('going', '2024-01-05T00:00:00Z', { phase: 'Ready', deleting: true }),
  ];

  it('sorts instances into ready, creating (anything not Ready) and claimed; deleting ones in none', () => {
    const census = poolCensus(all);
    expect(names(census.ready)).toEqual(['ready-old', 'ready-new']);
    expect(names(census.creating)).toEqual(['creating-old', 'failed-new', 'unreported']);
    expect(names(census.claimed)).toEqual(['claimed']);
  });

  it('chooses the surplus among unclaimed ones: not Ready first, newest first', () => {
    const census = poolCensus(all);
    expect(names(surplusInstances(census, 5))).toEqual([]);
    expect(names(surplusInstances(census, 3))).toEqual(['failed-new', 'unreported']);
    expect(names(surplusInstances(census, 1))).toEqual([
      'failed-new',
      'unreported',
      'creating-old',
      'ready-new',
    ]);
    expect(names(surplusInstances(census, 0))).toHaveLength(5);
  });
});
