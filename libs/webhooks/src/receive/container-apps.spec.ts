import { describe, expect, it } from '@jest/globals';
import { KubeCluster } from '@platform/cloud-core';
import { appNamespace, ContainerApps } from './container-apps.js';

describe('ContainerApps', () => {
  it('answers 503 provider_not_configured without a kubeconfig', async () => {
    const apps = new ContainerApps(new KubeCluster('apps-cluster', 'APPS_KUBECONFIG', null));
    await expect(apps.matching('org', 'reg/acme/shop', 'v1')).rejects.toMatchObject({
      status: 503,
      code: 'provider_not_configured',
    });
  });

  it('answers 502 provider_unavailable, not a 500, when the kubeconfig cannot be read', async () => {
    const cluster = new KubeCluster('apps-cluster', 'APPS_KUBECONFIG', '/nonexistent/kubeconfig');
    await expect(new ContainerApps(cluster).matching('org', 'reg/a/b', 'v1')).rejects.toMatchObject(
      { status: 502, code: 'provider_unavailable', retryable: true },
    );
  });

  it('puts a project’s apps in app-<first 8 hex digits of its uuid>', () => {
    expect(appNamespace('3f2a9c4e-1b2d-4e5f-8a9b-0c1d2e3f4a5b')).toBe('app-3f2a9c4e');
  });
});
