import { describe, expect, it } from '@jest/globals';
import type { HelmRelease } from '../cluster/layout.js';
import { appTransition } from './app-transitions.js';

const APP = '7d9f3a52-1c1e-4a51-9a0b-3f1f1d2c4b5a';
const PROJECT = '0b6c2f4e-8a7d-4e1f-9c3b-2d5e6f7a8b9c';

function release(
  status: HelmRelease['status'],
  extra: { generation?: number; kind?: string; deleting?: boolean } = {},
): HelmRelease {
  return {
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: {
      name: 'shop',
      namespace: 'app-0b6c2f4e',
      uid: 'uid-1',
      generation: extra.generation ?? 2,
      labels: {
        'platform.neutral.com/organization-id': 'org',
        'platform.neutral.com/project-id': PROJECT,
        'platform.neutral.com/app-kind': extra.kind ?? 'container',
        'platform.neutral.com/app-id': APP,
      },
      ...(extra.deleting ? { deletionTimestamp: new Date() } : {}),
    },
    spec: {
      values: {
        image: { repository: 'registry.example/acme/shop', tag: 'v1', digest: 'sha256:ab' },
      },
    },
    status,
  };
}

const ready = (status: string, at = '2030-01-01T10:00:00Z', reason = 'UpgradeSucceeded') => ({
  type: 'Ready',
  status,
  reason,
  message: `Helm ${status}`,
  lastTransitionTime: at,
});

describe('appTransition', () => {
  it('is app.deployed for the revision and generation Flux reports Ready', () => {
    const transition = appTransition(
      release({
        observedGeneration: 2,
        lastAttemptedRevision: '1.4.0',
        conditions: [ready('True')],
        history: [{ status: 'deployed', lastDeployed: '2030-01-01T10:05:00Z' }],
      }),
    );
    expect(transition).toEqual({
      type: 'app.deployed',
      transition: 'deployed:1.4.0:2',
      occurredAt: new Date('2030-01-01T10:05:00Z'),
      data: {
        app_id: APP,
        project_id: PROJECT,
        name: 'shop',
        kind: 'container',
        image: 'registry.example/acme/shop:v1@sha256:ab',
        revision: '1.4.0',
      },
    });
  });

  it('is app.failed, with the condition, when Ready is False', () => {
    const transition = appTransition(
      release({
        observedGeneration: 2,
        lastAttemptedRevision: '1.4.0',
        conditions: [ready('False', '2030-01-01T11:00:00Z', 'UpgradeFailed')],
      }),
    );
    expect(transition).toMatchObject({
      type: 'app.failed',
      transition: 'failed:1.4.0:2',
      occurredAt: new Date('2030-01-01T11:00:00Z'),
      data: { app_id: APP, revision: '1.4.0', reason: 'UpgradeFailed', message: 'Helm False' },
    });
  });

  it('names a new generation as a new transition, and the chart version from history', () => {
    const status = {
      observedGeneration: 3,
      conditions: [ready('True')],
      history: [{ status: 'deployed', chartVersion: '1.5.0' }],
    };
    expect(appTransition(release(status, { generation: 3 }))?.transition).toBe('deployed:1.5.0:3');
  });

  it('stands for nothing while Flux has not looked at the spec, or reports no verdict', () => {
    expect(appTransition(release({ observedGeneration: 1, conditions: [ready('True')] }))).toBe(
      null,
    );
    expect(appTransition(release({ conditions: [ready('True')] }))).toBe(null);
    expect(appTransition(release({ observedGeneration: 2, conditions: [ready('Unknown')] }))).toBe(
      null,
    );
    expect(appTransition(release({ observedGeneration: 2 }))).toBe(null);
  });

  it('stands for nothing for an app being deleted or of no kind the platform knows', () => {
    const status = { observedGeneration: 2, conditions: [ready('True')] };
    expect(appTransition(release(status, { deleting: true }))).toBe(null);
    expect(appTransition(release(status, { kind: 'mystery' }))).toBe(null);
  });

  it('has no image for kinds other than container', () => {
    const status = { observedGeneration: 2, conditions: [ready('True')] };
    expect(appTransition(release(status, { kind: 'wordpress' }))?.data).toMatchObject({
      kind: 'wordpress',
      image: null,
      revision: null,
    });
  });
});
