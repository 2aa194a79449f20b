import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreKinds, type KubeObject, ThirdPartyKinds } from '@platform/kube';
import type { PostgresCluster } from '@platform/groupware';
import { RESYNC_PERIOD_SECONDS } from './support.js';
import {
  conditionOf,
  createInstance,
  eventReasons,
  type InstanceTest,
  instanceOf,
  releaseOf,
  settleDatabase,
  settleRelease,
  startInstanceTest,
  waitForPhase,
} from './instance-support.js';

const NS = 'gwi-lifecycle';

describe('GroupwareInstance: creation with a managed database', () => {
  let test: InstanceTest;

  beforeAll(async () => {
    test = await startInstanceTest();
  });

  afterAll(async () => {
    await test.close();
  });

  it('goes Pending -> Creating, writing the admin Secret, the HelmRepository, the HelmRelease and the Cluster', async () => {
    await createInstance(test, NS, 'team', {
      version: '29',
      ingress: { enabled: true, host: 'team.example.com', tls: { enabled: true } },
      database: { managed: true, postgres: { replicas: 2, storage: { size: '20Gi' } } },
      persistence: { enabled: true, size: '50Gi' },
    });
    const creating = await waitForPhase(test, NS, 'team', 'Creating');
    expect(creating.metadata.finalizers).toEqual(['k8s.neutral.com/groupware-instance']);
    expect(creating.status).toMatchObject({
      phase: 'Creating',
      observedGeneration: 1,
      url: 'https://team.example.com',
      versionResolution: {
        requestedVersion: '29',
        resolvedVersion: '29.0.16',
        chartVersion: '5.5.6',
        resolvedBy: 'builtin',
      },
    });
    expect(conditionOf(creating, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Creating',
      observedGeneration: 1,
    });

    const admin = test.server.get<KubeObject & { data: Record<string, string> }>(
      CoreKinds.Secret,
      NS,
      'team-admin',
    )!;
    const decoded = (key: string) => Buffer.from(admin.data[key]!, 'base64').toString();
    expect(decoded('username')).toBe('admin');
    expect(decoded('password')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(decoded('email')).toBe('admin@team.example.com');
    expect(admin.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'GroupwareInstance', name: 'team', controller: true }),
    ]);

    const repository = test.server.get<KubeObject>(
      ThirdPartyKinds.HelmRepository,
      NS,
      'nextcloud',
    )!;
    expect(repository.spec).toEqual({ url: 'https://nextcloud.github.io/helm/', interval: '1h' });
    // Shared: an owner, not the controller, so the last instance of the namespace takes it along.
    expect(repository.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'k8s.neutral.com/v1alpha1',
        kind: 'GroupwareInstance',
        name: 'team',
        uid: creating.metadata.uid,
      },
    ]);

    const release = await releaseOf(test, NS, 'team');
    expect(release.spec).toMatchObject({
      releaseName: 'team',
      chart: {
        spec: {
          chart: 'nextcloud',
          version: '5.5.6',
          sourceRef: { kind: 'HelmRepository', name: 'nextcloud' },
        },
      },
    });
    expect(release.spec!.values).toMatchObject({
      fullnameOverride: 'team',
      image: { tag: '29.0.16' },
      replicaCount: 1,
      internalDatabase: { enabled: false },
      externalDatabase: {
        enabled: true,
        type: 'postgresql',
        host: 'team-db-rw',
        existingSecret: { enabled: true, secretName: 'team-db-app' },
      },
      nextcloud: {
        host: 'team.example.com',
        existingSecret: { enabled: true, secretName: 'team-admin', passwordKey: 'password' },
      },
    });
    // Credentials are referenced, never copied.
    expect(JSON.stringify(release.spec)).not.toContain(decoded('password'));

    const cluster = test.server.get<PostgresCluster>(
      ThirdPartyKinds.PostgresCluster,
      NS,
      'team-db',
    )!;
    expect(cluster.spec).toEqual({
      instances: 2,
      storage: { size: '20Gi' },
      bootstrap: { initdb: { database: 'nextcloud', owner: 'nextcloud' } },
    });
  });

  it('stays Creating while only the release is Ready, and is Ready once the database is healthy', async () => {
    settleRelease(test.server, NS, 'team', { ready: true });
    await test.operator.advance({ seconds: 1 });
    expect(instanceOf(test.server, NS, 'team')?.status?.phase).toBe('Creating');

    settleDatabase(test.server, NS, 'team-db');
    const ready = await waitForPhase(test, NS, 'team', 'Ready');
    expect(conditionOf(ready, 'Ready')).toMatchObject({ status: 'True', reason: 'Ready' });
    expect(eventReasons(test.server, NS, 'team')).toEqual(['Pending', 'Creating', 'Ready']);
    const metrics = await test.operator.metrics();
    expect(metrics).toContain(
      `groupware_instance_phase{namespace="${NS}",name="team",phase="Ready"} 1`,
    );
    expect(metrics).toContain(
      `groupware_instance_phase{namespace="${NS}",name="team",phase="Creating"} 0`,
    );
  });

  it('writes nothing over a resync once everything is as wanted', async () => {
    await test.operator.settled();
    test.server.clearRequests();
    await test.operator.advance({ seconds: RESYNC_PERIOD_SECONDS + 1 });
    expect(test.server.mutations()).toBe(0);
  });

  it('keeps the generated admin password when the Secret exists', async () => {
    const before = test.server.get<KubeObject & { data: Record<string, string> }>(
      CoreKinds.Secret,
      NS,
      'team-admin',
    )!;
    await test.operator.advance({ seconds: RESYNC_PERIOD_SECONDS + 1 });
    const after = test.server.get<KubeObject & { data: Record<string, string> }>(
      CoreKinds.Secret,
      NS,
      'team-admin',
    )!;
    expect(after.data.password).toBe(before.data.password);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('marks a broken database Failed with DatabaseFailed', async () => {
    settleDatabase(test.server, NS, 'team-db', 'Unable to create required cluster objects');
    const failed = await waitForPhase(test, NS, 'team', 'Failed');
    expect(conditionOf(failed, 'DatabaseFailed')).toMatchObject({
      status: 'True',
      reason: 'DatabaseFailed',
      message: 'Cluster team-db: Unable to create required cluster objects',
    });
    expect(conditionOf(failed, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'DatabaseFailed',
    });
    expect(eventReasons(test.server, NS, 'team').at(-1)).toBe('Warning/DatabaseFailed');

    settleDatabase(test.server, NS, 'team-db');
    const ready = await waitForPhase(test, NS, 'team', 'Ready');
    expect(conditionOf(ready, 'DatabaseFailed')).toBeUndefined();
  });
});
