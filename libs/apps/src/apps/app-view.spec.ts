import { describe, expect, it } from '@jest/globals';
import type { HelmRelease } from '../cluster/layout.js';
import { appStatus, appView, lastDeployedAt } from './app-view.js';

const release = (
  status: HelmRelease['status'],
  values: Record<string, unknown> = {},
  generation = 2,
): HelmRelease => ({
  apiVersion: 'helm.toolkit.fluxcd.io/v2',
  kind: 'HelmRelease',
  metadata: {
    name: 'shop',
    namespace: 'app-12345678',
    generation,
    labels: {
      'platform.neutral.com/app-id': '00000000-0000-4000-8000-000000000001',
      'platform.neutral.com/project-id': '12345678-0000-4000-8000-000000000002',
      'platform.neutral.com/app-kind': 'container',
    },
  },
  spec: { values },
  status,
});

const ready = (status: string, at = '2024-05-01T10:00:00Z') => ({
  observedGeneration: 2,
  conditions: [{ type: 'Ready', status, reason: 'R', lastTransitionTime: at }],
});

describe('the app view', () => {
  it.each([
    ['True', 'ready'],
    ['False', 'failed'],
    ['Unknown', 'progressing'],
  ])('Ready %s is %s', (condition, status) => {
    expect(appStatus(release(ready(condition)))).toBe(status);
  });

  it('is progressing while Flux has not reconciled the current spec, whatever Ready says', () => {
    expect(appStatus(release(undefined))).toBe('progressing');
    expect(appStatus(release({ ...ready('True'), observedGeneration: 1 }))).toBe('progressing');
    expect(appStatus(release({ ...ready('False'), observedGeneration: 1 }))).toBe('progressing');
  });

  it('is unknown when Flux reconciled the spec but reports no Ready condition', () => {
    expect(appStatus(release({ observedGeneration: 2, conditions: [] }))).toBe('unknown');
  });

  it('takes the last deploy from the history, else the Released or Ready condition', () => {
    expect(
      lastDeployedAt(
        release({
          ...ready('False'),
          history: [
            { status: 'failed', lastDeployed: '2024-05-03T00:00:00Z' },
            { status: 'deployed', lastDeployed: '2024-05-02T00:00:00Z' },
          ],
        }),
      ),
    ).toBe('2024-05-02T00:00:00Z');
    const released = {
      observedGeneration: 2,
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: '2024-05-01T12:00:00Z' },
        { type: 'Released', status: 'True', lastTransitionTime: '2024-05-01T11:00:00Z' },
      ],
    };
    expect(lastDeployedAt(release(released))).toBe('2024-05-01T11:00:00Z');
    expect(lastDeployedAt(release(ready('True')))).toBe('2024-05-01T10:00:00Z');
    expect(lastDeployedAt(release(ready('False')))).toBeNull();
  });

  it("shows a container's image with its pinned digest, and the host as an https url", () => {
    const view = appView(
      release(ready('True'), {
        image: { repository: 'r.example.com/ns/app', tag: '1.0', digest: 'sha256:abc' },
        port: 80,
        replicas: 1,
        host: 'app.example.com',
      }),
    );
    expect(view).toEqual({
      id: '00000000-0000-4000-8000-000000000001',
      project_id: '12345678-0000-4000-8000-000000000002',
      name: 'shop',
      kind: 'container',
      status: 'ready',
      values: { image: 'r.example.com/ns/app:1.0', port: 80, replicas: 1, host: 'app.example.com' },
      image: 'r.example.com/ns/app:1.0@sha256:abc',
      url: 'https://app.example.com',
      last_deployed_at: '2024-05-01T10:00:00Z',
    });
  });
});
