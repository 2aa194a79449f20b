import { describe, expect, it } from '@jest/globals';
import type { GroupwareInstance, GroupwareInstanceSpec, GroupwareProfile } from '../crds/types.js';
import {
  instanceValues,
  mergeValues,
  profileValues,
  releaseValues,
  withRemovals,
} from './helm-values.js';
import { resolveVersion } from './version-resolution.js';

const resolution = resolveVersion('29')!;

function spec(fields: Partial<GroupwareInstanceSpec> = {}): GroupwareInstanceSpec {
  return {
    version: '29',
    database: {
      type: 'postgresql',
      managed: false,
      port: 5432,
      name: 'nextcloud',
      user: 'nextcloud',
    },
    backups: { data: { enabled: false, schedule: '0 3 * * *', deleteOnCleanup: false } },
    ...fields,
  } as GroupwareInstanceSpec;
}

const values = (fields: Partial<GroupwareInstanceSpec>, profile?: GroupwareProfile) =>
  instanceValues('team', spec(fields), profile, resolution);

const profile = (defaults: object, helm?: object) =>
  ({ metadata: { name: 'production' }, spec: { defaults, helm } }) as GroupwareProfile;

describe('HelmRelease values of a GroupwareInstance', () => {
  it('names the chart objects after the instance and runs the resolved version', () => {
    expect(values({})).toEqual({
      fullnameOverride: 'team',
      image: { tag: '29.0.16' },
      replicaCount: 1,
      nextcloud: {
        existingSecret: {
          enabled: true,
          secretName: 'team-admin',
          usernameKey: 'username',
          passwordKey: 'password',
        },
      },
    });
  });

  it('takes the admin Secret the spec names', () => {
    expect(values({ admin: { credentialsSecret: 'team-root' } }).nextcloud).toMatchObject({
      existingSecret: { secretName: 'team-root' },
    });
  });

  it('maps replicas, persistence, resources, probes and cron as written', () => {
    const mapped = values({
      replicas: 3,
      persistence: { enabled: true, size: '50Gi', storageClass: 'ssd' },
      resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '2Gi' } },
      livenessProbe: { initialDelaySeconds: 30 },
      readinessProbe: { periodSeconds: 20 },
      startupProbe: { enabled: true, failureThreshold: 60 },
      cronjob: { enabled: true },
    });
    expect(mapped).toMatchObject({
      replicaCount: 3,
      persistence: { enabled: true, size: '50Gi', storageClass: 'ssd' },
      resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '2Gi' } },
      livenessProbe: { initialDelaySeconds: 30 },
      readinessProbe: { periodSeconds: 20 },
      startupProbe: { enabled: true, failureThreshold: 60 },
      cronjob: { enabled: true },
    });
  });

  it('maps the ingress, with a TLS Secret per instance when tls is enabled', () => {
    const mapped = values({
      ingress: {
        enabled: true,
        host: 'team.example.com',
        className: 'nginx',
        annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt' },
        tls: { enabled: true },
      },
    });
    expect(mapped.ingress).toEqual({
      enabled: true,
      className: 'nginx',
      annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt' },
      tls: [{ secretName: 'team-tls', hosts: ['team.example.com'] }],
    });
    expect(mapped.nextcloud).toMatchObject({ host: 'team.example.com' });
    expect(values({ ingress: { enabled: true, host: 'a.example.com' } }).ingress).toEqual({
      enabled: true,
    });
  });

  it('points a managed database at the Cluster service and its app Secret', () => {
    const mapped = values({
      database: { type: 'postgresql', managed: true, port: 5432, name: 'cloud', user: 'cloud' },
    });
    expect(mapped.internalDatabase).toEqual({ enabled: false });
    expect(mapped.externalDatabase).toEqual({
      enabled: true,
      type: 'postgresql',
      host: 'team-db-rw',
      database: 'cloud',
      existingSecret: {
        enabled: true,
        secretName: 'team-db-app',
        usernameKey: 'username',
        passwordKey: 'password',
      },
    });
  });

  it('reads an external database from its credentials Secret by key', () => {
    const mapped = values({
      database: {
        type: 'mysql',
        managed: false,
        credentialsSecret: 'team-db',
        host: 'ignored.example.com',
        port: 5432,
        name: 'nextcloud',
        user: 'nextcloud',
      },
    });
    expect(mapped.externalDatabase).toEqual({
      enabled: true,
      type: 'mysql',
      existingSecret: {
        enabled: true,
        secretName: 'team-db',
        hostKey: 'host',
        databaseKey: 'name',
        usernameKey: 'user',
        passwordKey: 'password',
      },
    });
  });

  it('passes an inline external database as written, host with port', () => {
    const mapped = values({
      database: {
        type: 'postgresql',
        managed: false,
        host: 'pg.example.com',
        port: 6432,
        name: 'cloud',
        user: 'cloud',
        password: 'inline',
      },
    });
    expect(mapped.externalDatabase).toEqual({
      enabled: true,
      type: 'postgresql',
      host: 'pg.example.com:6432',
      database: 'cloud',
      user: 'cloud',
      password: 'inline',
    });
  });

  it('uses the Redis subchart without a Secret, and the Secret by reference with one', () => {
    expect(values({ redis: { enabled: true } }).redis).toEqual({ enabled: true });
    const external = values({ redis: { enabled: true, credentialsSecret: 'team-redis' } });
    expect(external.redis).toEqual({ enabled: false });
    expect((external.nextcloud as { extraEnv: unknown }).extraEnv).toEqual([
      { name: 'REDIS_HOST', valueFrom: { secretKeyRef: { name: 'team-redis', key: 'host' } } },
      { name: 'REDIS_HOST_PORT', valueFrom: { secretKeyRef: { name: 'team-redis', key: 'port' } } },
      {
        name: 'REDIS_HOST_PASSWORD',
        valueFrom: { secretKeyRef: { name: 'team-redis', key: 'password' } },
      },
    ]);
  });

  it('sets S3 primary storage from its Secret, the region through valuesFrom', () => {
    const instance = {
      metadata: { name: 'team', namespace: 'ns' },
      spec: spec({ s3: { enabled: true, credentialsSecret: 'team-s3' } }),
    } as GroupwareInstance;
    const { values: all, valuesFrom } = releaseValues(instance, undefined, resolution);
    expect((all.nextcloud as { objectStore: unknown }).objectStore).toEqual({
      s3: {
        enabled: true,
        existingSecret: 'team-s3',
        secretKeys: {
          host: 'endpoint',
          bucket: 'bucket',
          accessKey: 'accessKey',
          secretKey: 'secretKey',
        },
      },
    });
    expect(valuesFrom).toEqual([
      {
        kind: 'Secret',
        name: 'team-s3',
        valuesKey: 'region',
        targetPath: 'nextcloud.objectStore.s3.region',
      },
    ]);
  });

  it('sets mail from its Secret through the image variables', () => {
    const mapped = values({ mail: { enabled: true, credentialsSecret: 'team-mail' } });
    const env = (mapped.nextcloud as { extraEnv: Array<{ name: string; valueFrom: unknown }> })
      .extraEnv;
    expect(env.map((entry) => entry.name)).toEqual([
      'MAIL_FROM_ADDRESS',
      'MAIL_DOMAIN',
      'SMTP_HOST',
      'SMTP_PORT',
      'SMTP_SECURE',
      'SMTP_AUTHTYPE',
      'SMTP_NAME',
      'SMTP_PASSWORD',
    ]);
    expect(env[7]!.valueFrom).toEqual({
      secretKeyRef: { name: 'team-mail', key: 'smtpPassword' },
    });
  });

  it('leaves replicas to the profile when the instance sets none', () => {
    expect(values({}, profile({ replicaCount: 2 })).replicaCount).toBeUndefined();
    expect(values({ replicas: 4 }, profile({ replicaCount: 2 })).replicaCount).toBe(4);
  });
});

describe('Layering of the values', () => {
  it('merges maps key by key and replaces lists and scalars', () => {
    expect(
      mergeValues(
        { a: { b: 1, c: [1, 2] }, d: 'x' },
        { a: { c: [3], e: true }, d: 'y', f: undefined },
      ),
    ).toEqual({ a: { b: 1, c: [3], e: true }, d: 'y' });
  });

  it('marks with null what the live values have and the wanted ones lack', () => {
    expect(
      withRemovals(
        { image: { tag: '30.0.17' }, replicaCount: 2 },
        {
          image: { tag: '29.0.16', flavor: 'apache' },
          replicaCount: 1,
          ingress: { enabled: true },
        },
      ),
    ).toEqual({ image: { tag: '30.0.17', flavor: null }, replicaCount: 2, ingress: null });
    expect(withRemovals({ a: 1 }, undefined)).toEqual({ a: 1 });
  });

  it('puts the profile under the instance and spec.helm.values over everything', () => {
    const instance = {
      metadata: { name: 'team', namespace: 'ns' },
      spec: spec({
        persistence: { size: '80Gi' },
        helm: { values: { replicaCount: 5, persistence: { storageClass: 'fast' } } },
      }),
    } as GroupwareInstance;
    const production = profile({
      replicaCount: 2,
      persistence: { enabled: true, size: '10Gi', storageClass: 'standard' },
      resources: { requests: { cpu: '1' } },
      internalDatabase: { enabled: false },
    });
    expect(profileValues(production)).toEqual({
      replicaCount: 2,
      persistence: { enabled: true, size: '10Gi', storageClass: 'standard' },
      resources: { requests: { cpu: '1' } },
      internalDatabase: { enabled: false },
    });
    const { values: all } = releaseValues(instance, production, resolution);
    expect(all).toMatchObject({
      replicaCount: 5,
      persistence: { enabled: true, size: '80Gi', storageClass: 'fast' },
      resources: { requests: { cpu: '1' } },
      internalDatabase: { enabled: false },
    });
  });
});
