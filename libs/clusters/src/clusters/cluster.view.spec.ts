import { describe, expect, it } from '@jest/globals';
import type { Shoot } from '../garden/gardener-kinds.js';
import { gardenNamespace, gardenProjectName } from '../tenancy/garden-projects.service.js';
import { clusterView } from './cluster.view.js';

const shoot = (metadata: Partial<Shoot['metadata']>, status?: Shoot['status']): Shoot => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: { name: 'prod', uid: 'u', ...metadata },
  spec: { cloudProfileName: 'legacy', region: 'r', kubernetes: { version: '1.31.2' } },
  status,
});

describe('the cluster view', () => {
  it('is Pending Create before Gardener reported anything', () => {
    expect(clusterView(shoot({})).status).toMatchObject({
      state: 'Pending',
      progress: 0,
      type: 'Create',
    });
  });

  it('is a Pending Delete once deletion is accepted, until Gardener reports the Delete', () => {
    const deleting = shoot(
      { deletionTimestamp: new Date() },
      { lastOperation: { type: 'Reconcile', state: 'Succeeded', progress: 100 } },
    );
    expect(clusterView(deleting).status).toMatchObject({
      state: 'Pending',
      progress: 0,
      type: 'Delete',
    });
    deleting.status!.lastOperation = { type: 'Delete', state: 'Processing', progress: 12.6 };
    expect(clusterView(deleting).status).toMatchObject({
      state: 'Processing',
      progress: 13,
      type: 'Delete',
    });
  });

  it('reads the profile from cloudProfileName where a Shoot has no cloudProfile', () => {
    expect(clusterView(shoot({})).cloud_profile).toBe('legacy');
    expect(clusterView(shoot({})).workers).toEqual([]);
  });
});

describe('Gardener project names', () => {
  it('are p and the first 8 hex digits of the uuid, in garden-<name>', () => {
    const name = gardenProjectName('3F2504E0-4F89-11D3-9A0C-0305E82C3301');
    expect(name).toBe('p3f2504e0');
    expect(gardenNamespace(name)).toBe('garden-p3f2504e0');
  });
});
