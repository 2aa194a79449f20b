import { describe, expect, it } from '@jest/globals';
import type { Shoot } from '../garden/gardener-kinds.js';
import { clusterTransition } from './cluster-transitions.js';

const PROJECT = '0b6c2f4e-8a7d-4e1f-9c3b-2d5e6f7a8b9c';
const NOW = new Date('2030-01-02T12:00:00Z');

function shoot(
  operation: { type: string; state: string } | undefined,
  extra: { created?: string; deleting?: boolean; labelled?: boolean } = {},
): Shoot {
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: {
      name: 'prod',
      namespace: 'garden-p0b6c2f4e',
      uid: 'shoot-uid',
      creationTimestamp: (extra.created ?? '2030-01-02T11:00:00Z') as unknown as Date,
      labels: extra.labelled === false ? {} : { 'platform.k8s.neutral.com/project-id': PROJECT },
      ...(extra.deleting ? { deletionTimestamp: NOW } : {}),
    },
    spec: { region: 'eu-de-1', kubernetes: { version: '1.31.2' } },
    status: operation ? { lastOperation: { ...operation, progress: 100 } } : undefined,
  };
}

describe('clusterTransition', () => {
  it('is cluster.ready once the Create succeeded', () => {
    expect(clusterTransition(shoot({ type: 'Create', state: 'Succeeded' }), NOW)).toEqual({
      type: 'cluster.ready',
      transition: 'ready',
      occurredAt: new Date('2030-01-02T11:00:00Z'),
      data: {
        cluster_id: 'shoot-uid',
        project_id: PROJECT,
        name: 'prod',
        kubernetes_version: '1.31.2',
        region: 'eu-de-1',
      },
    });
  });

  it('takes a succeeded Reconcile of a new Shoot for its first success, not of an old one', () => {
    const reconciled = { type: 'Reconcile', state: 'Succeeded' };
    expect(clusterTransition(shoot(reconciled), NOW)?.transition).toBe('ready');
    expect(clusterTransition(shoot(reconciled, { created: '2029-12-30T00:00:00Z' }), NOW)).toBe(
      null,
    );
  });

  it('stands for nothing while creating, failing, deleting, or without the project label', () => {
    expect(clusterTransition(shoot(undefined), NOW)).toBe(null);
    expect(clusterTransition(shoot({ type: 'Create', state: 'Processing' }), NOW)).toBe(null);
    expect(clusterTransition(shoot({ type: 'Create', state: 'Error' }), NOW)).toBe(null);
    expect(clusterTransition(shoot({ type: 'Delete', state: 'Succeeded' }), NOW)).toBe(null);
    const created = { type: 'Create', state: 'Succeeded' };
    expect(clusterTransition(shoot(created, { deleting: true }), NOW)).toBe(null);
    expect(clusterTransition(shoot(created, { labelled: false }), NOW)).toBe(null);
  });
});
