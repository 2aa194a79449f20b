import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { occJobName } from '@platform/groupware';
import { CoreKinds, type KubeObject, ThirdPartyKinds } from '@platform/kube';
import { eventually } from '@platform/testing';
import { parse } from 'yaml';
import { RESYNC_PERIOD_SECONDS } from './support.js';
import {
  type InstanceTest,
  InstanceKind,
  ProfileKind,
  releaseOf,
  settleDatabase,
  settleRelease,
  startInstanceTest,
  waitForPhase,
} from './instance-support.js';

/*
 * `kubectl apply` of the chart's sample profile and instance: the objects the design names
 * appear, and with Flux and CloudNativePG reporting Ready, the instance is Ready and its apps
 * are applied.
 */

const example = (file: string) =>
  parse(
    readFileSync(
      fileURLToPath(new URL(`../../charts/groupware-operator/examples/${file}`, import.meta.url)),
      'utf8',
    ),
  ) as KubeObject;

describe('The chart’s sample GroupwareInstance', () => {
  let test: InstanceTest;
  const NS = 'groupware';
  const get = (kind: Parameters<InstanceTest['server']['get']>[0], name: string) =>
    test.server.get<KubeObject>(kind, NS, name);

  beforeAll(async () => {
    test = await startInstanceTest();
    await test.operator.client.create(ProfileKind, example('groupwareprofile.yaml'));
    await test.operator.client.create(InstanceKind, example('groupwareinstance.yaml'));
  });

  afterAll(async () => {
    await test.close();
  });

  it('yields the objects the design names', async () => {
    await waitForPhase(test, NS, 'team-cloud', 'Creating');
    expect(get(CoreKinds.Secret, 'team-cloud-admin')).toBeDefined();
    expect(get(ThirdPartyKinds.HelmRepository, 'nextcloud')).toBeDefined();
    const release = await releaseOf(test, NS, 'team-cloud');
    expect(release.spec!.values).toMatchObject({
      fullnameOverride: 'team-cloud',
      image: { tag: '29.0.16' },
      replicaCount: 2,
      persistence: { enabled: true, size: '50Gi' },
      ingress: {
        enabled: true,
        className: 'nginx',
        tls: [{ secretName: 'team-cloud-tls', hosts: ['cloud.example.com'] }],
      },
      externalDatabase: { host: 'team-cloud-db-rw' },
    });
    expect(get(ThirdPartyKinds.PostgresCluster, 'team-cloud-db')?.spec).toMatchObject({
      instances: 2,
      storage: { size: '20Gi' },
    });
    expect(get(CoreKinds.CronJob, 'team-cloud-data-backup')?.spec).toMatchObject({
      schedule: '0 3 * * *',
    });
  });

  it('becomes Ready and applies its apps one Job at a time', async () => {
    settleRelease(test.server, NS, 'team-cloud', { ready: true });
    settleDatabase(test.server, NS, 'team-cloud-db');
    const ready = await waitForPhase(test, NS, 'team-cloud', 'Ready');
    expect(ready.status?.url).toBe('https://cloud.example.com');
    await eventually(() =>
      get(CoreKinds.Job, occJobName('team-cloud', [['app:enable', 'calendar']])),
    );
  });

  it('writes nothing over a resync while its first apps Job runs', async () => {
    await test.operator.settled();
    test.server.clearRequests();
    await test.operator.advance({ seconds: RESYNC_PERIOD_SECONDS + 1 });
    expect(test.server.mutations()).toBe(0);
  });
});
