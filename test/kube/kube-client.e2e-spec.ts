import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreKinds, KubeApiError, KubeClient, type KubeObject } from '@platform/kube';
import { FakeKubeApiServer } from '@platform/testing';
import { widget, WidgetKind } from './operator-test-app.js';
import type { Widget } from './widget-reconciler.js';

describe('KubeClient against the API server', () => {
  let server: FakeKubeApiServer;
  let client: KubeClient;

  beforeAll(async () => {
    server = await FakeKubeApiServer.start();
    server.registerKind({ ...WidgetKind, statusSubresource: true });
    client = KubeClient.fromKubeconfigYaml(server.kubeconfigYaml());
  });

  afterAll(async () => {
    await server.stop();
  });

  it('creates, reads, lists by label, replaces and deletes', async () => {
    const created = await client.create<Widget>(WidgetKind, {
      ...widget('crud'),
      metadata: { name: 'crud', namespace: 'team-a', labels: { tier: 'gold' } },
    });
    expect(created.metadata).toMatchObject({ name: 'crud', namespace: 'team-a', generation: 1 });
    expect(created.metadata.uid).toEqual(expect.any(String));
    await client.create(WidgetKind, widget('other'));

    expect((await client.get<Widget>(WidgetKind, 'team-a', 'crud'))?.spec).toEqual({ size: 1 });
    const { items, resourceVersion } = await client.list<Widget>(WidgetKind, 'team-a', {
      labelSelector: 'tier=gold',
    });
    expect(items.map((item) => item.metadata.name)).toEqual(['crud']);
    expect(resourceVersion).toBe(server.resourceVersion);

    const replaced = await client.replace<Widget>(WidgetKind, { ...created, spec: { size: 3 } });
    expect(replaced.metadata.generation).toBe(2);
    const stale = client.replace<Widget>(WidgetKind, { ...created, spec: { size: 4 } });
    await expect(stale).rejects.toMatchObject({ status: 409, reason: 'Conflict' });

    await client.delete(WidgetKind, 'team-a', 'crud');
    expect(await client.get(WidgetKind, 'team-a', 'crud')).toBeUndefined();
    await expect(client.delete(WidgetKind, 'team-a', 'crud')).resolves.toBeUndefined();
  });

  it('merge-patches objects and their status subresource separately', async () => {
    await client.create(WidgetKind, {
      ...widget('patched'),
      spec: { size: 1, schedule: '0 3 * * *' },
    });
    const patched = await client.mergePatch<Widget>(WidgetKind, 'team-a', 'patched', {
      spec: { size: 2 },
      status: { phase: 'Ignored' },
    });
    expect(patched.spec).toEqual({ size: 2, schedule: '0 3 * * *' });
    expect(patched.status).toBeUndefined();
    const withStatus = await client.mergePatchStatus<Widget>(WidgetKind, 'team-a', 'patched', {
      phase: 'Ready',
    });
    expect(withStatus.status).toEqual({ phase: 'Ready' });
    expect(withStatus.metadata.generation).toBe(2);
    const request = server.requests.at(-1)!;
    expect(request).toMatchObject({
      method: 'PATCH',
      kind: 'Widget',
      name: 'patched',
      subresource: 'status',
    });
  });

  it('raises KubeApiError with the status and reason of the refusal', async () => {
    await client.create(WidgetKind, widget('twice'));
    const error = await client.create(WidgetKind, widget('twice')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect(error).toMatchObject({ status: 409, reason: 'AlreadyExists' });
    await expect(
      client.mergePatch(WidgetKind, 'team-a', 'missing', { spec: {} }),
    ).rejects.toMatchObject({
      status: 404,
      reason: 'NotFound',
    });
  });

  it('reads pod logs as text', async () => {
    server.put(CoreKinds.Pod, {
      metadata: { name: 'restore-1-abc', namespace: 'team-a' },
      spec: { containers: [{ name: 'restic', image: 'restic:0.18.1' }] },
    });
    server.setPodLog('team-a', 'restore-1-abc', 'line 1\nline 2\nline 3\n', 'restic');
    expect(
      await client.podLog('team-a', 'restore-1-abc', { container: 'restic', tailLines: 2 }),
    ).toBe('line 2\nline 3\n');
  });

  it('builds from the kubeconfig file named by KUBECONFIG, with its context namespace', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'kubeconfig-'));
    try {
      const path = join(directory, 'config');
      await writeFile(path, server.kubeconfigYaml());
      const fromFile = KubeClient.fromEnvironment(path);
      expect(fromFile.currentNamespace()).toBe('default');
      expect(await fromFile.get<KubeObject>(WidgetKind, 'team-a', 'patched')).toBeDefined();
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
