import type { V1EnvVar } from '@kubernetes/client-node';
import type { GroupwareInstance, GroupwareInstanceSpec, GroupwareProfile } from '../crds/types.js';
import { instanceObjectNames } from './instance-names.js';
import type { VersionResolution } from './version-resolution.js';

export type Values = Record<string, unknown>;

/** A Flux `valuesFrom` entry: one Secret key placed at a path of the values. */
export interface ValuesReference {
  kind: 'Secret';
  name: string;
  valuesKey: string;
  targetPath: string;
}

export interface ReleaseValues {
  values: Values;
  valuesFrom: ValuesReference[];
}

/**
 * Merges chart values as Helm does: maps merge key by key, anything else (lists included) is
 * replaced by the later layer.
 */
export function mergeValues(base: Values, override: Values): Values {
  const merged: Values = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined) continue;
    const current = merged[key];
    merged[key] = isMap(current) && isMap(value) ? mergeValues(current, value) : value;
  }
  return merged;
}

/**
 * `desired` with null wherever `live` has a key that `desired` lacks, at any depth of maps, so
 * that a merge patch also removes what the spec no longer asks for.
 */
export function withRemovals(desired: Values, live: unknown): Values {
  if (!isMap(live)) return desired;
  const result: Values = { ...desired };
  for (const [key, value] of Object.entries(live)) {
    const wanted = desired[key];
    if (wanted === undefined) result[key] = null;
    else if (isMap(wanted) && isMap(value)) result[key] = withRemovals(wanted, value);
  }
  return result;
}

function isMap(value: unknown): value is Values {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Drops undefined members, so the HelmRelease carries only what was set. */
function compact(values: Values): Values {
  const result: Values = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    result[key] = isMap(value) ? compact(value) : value;
  }
  return result;
}

/** The profile's defaults as chart values: the layer under the instance spec. */
export function profileValues(profile: GroupwareProfile | undefined): Values {
  const defaults = profile?.spec?.defaults;
  if (!defaults) return {};
  return compact({
    replicaCount: defaults.replicaCount,
    resources: defaults.resources,
    persistence: defaults.persistence,
    internalDatabase: defaults.internalDatabase,
  });
}

/**
 * The HelmRelease's values, later layers winning: the chart's own defaults (not written), the
 * profile's defaults, the instance spec mapped to chart values, then `spec.helm.values`.
 * Credentials stay in their Secrets: the chart's `existingSecret` keys, `secretKeyRef`
 * environment entries, or `valuesFrom`.
 */
export function releaseValues(
  instance: GroupwareInstance,
  profile: GroupwareProfile | undefined,
  resolution: VersionResolution,
): ReleaseValues {
  const spec = instance.spec!;
  const mapped = instanceValues(instance.metadata.name!, spec, profile, resolution);
  const values = mergeValues(mergeValues(profileValues(profile), mapped), spec.helm?.values ?? {});
  return { values, valuesFrom: valuesReferences(spec) };
}

/** The instance spec as nextcloud chart values. */
export function instanceValues(
  name: string,
  spec: GroupwareInstanceSpec,
  profile: GroupwareProfile | undefined,
  resolution: VersionResolution,
): Values {
  const names = instanceObjectNames(name);
  const ingress = spec.ingress;
  const extraEnv = [...redisEnv(spec), ...mailEnv(spec)];
  // The spec's default of 1 replica holds only when neither the instance nor its profile sets it.
  const replicaCount = spec.replicas ?? (profile?.spec?.defaults?.replicaCount ? undefined : 1);
  return compact({
    // The chart's objects are then named after the instance (`<name>-nextcloud` claim, pods
    // labelled `app.kubernetes.io/instance: <name>`), which the occ Jobs rely on.
    fullnameOverride: name,
    image: { tag: resolution.resolvedVersion },
    replicaCount,
    ingress: ingress && {
      enabled: ingress.enabled,
      className: ingress.className,
      annotations: ingress.annotations,
      tls:
        ingress.tls?.enabled && ingress.host
          ? [{ secretName: names.tlsSecret, hosts: [ingress.host] }]
          : undefined,
    },
    nextcloud: {
      host: ingress?.host,
      existingSecret: {
        enabled: true,
        secretName: spec.admin?.credentialsSecret ?? names.adminSecret,
        usernameKey: 'username',
        passwordKey: 'password',
      },
      objectStore: spec.s3?.enabled ? { s3: objectStoreValues(spec) } : undefined,
      extraEnv: extraEnv.length > 0 ? extraEnv : undefined,
    },
    persistence: spec.persistence,
    resources: spec.resources,
    livenessProbe: spec.livenessProbe,
    readinessProbe: spec.readinessProbe,
    startupProbe: spec.startupProbe,
    cronjob: spec.cronjob,
    ...databaseValues(name, spec),
    redis: spec.redis?.enabled ? { enabled: !spec.redis.credentialsSecret } : undefined,
  });
}

/** The database section: managed cluster, external by Secret or inline, else the chart's own. */
export function databaseValues(name: string, spec: GroupwareInstanceSpec): Values {
  const database = spec.database;
  const names = instanceObjectNames(name);
  if (database.managed) {
    return {
      internalDatabase: { enabled: false },
      externalDatabase: {
        enabled: true,
        type: 'postgresql',
        host: names.databaseService,
        database: database.name,
        existingSecret: {
          enabled: true,
          secretName: names.databaseSecret,
          usernameKey: 'username',
          passwordKey: 'password',
        },
      },
    };
  }
  if (database.credentialsSecret) {
    return {
      internalDatabase: { enabled: false },
      externalDatabase: {
        enabled: true,
        type: database.type,
        existingSecret: {
          enabled: true,
          secretName: database.credentialsSecret,
          hostKey: 'host',
          databaseKey: 'name',
          usernameKey: 'user',
          passwordKey: 'password',
        },
      },
    };
  }
  if (database.host) {
    // Inline values are already stored in the instance object as the user wrote them.
    return {
      internalDatabase: { enabled: false },
      externalDatabase: {
        enabled: true,
        type: database.type,
        host: `${database.host}:${database.port}`,
        database: database.name,
        user: database.user,
        password: database.password,
      },
    };
  }
  return {};
}

function objectStoreValues(spec: GroupwareInstanceSpec): Values {
  const secret = spec.s3?.credentialsSecret;
  if (!secret) return { enabled: true };
  return {
    enabled: true,
    existingSecret: secret,
    secretKeys: {
      host: 'endpoint',
      bucket: 'bucket',
      accessKey: 'accessKey',
      secretKey: 'secretKey',
    },
  };
}

/** Values the chart takes only inline, read by Flux from the Secret at install time. */
function valuesReferences(spec: GroupwareInstanceSpec): ValuesReference[] {
  const secret = spec.s3?.enabled ? spec.s3.credentialsSecret : undefined;
  if (!secret) return [];
  return [
    {
      kind: 'Secret',
      name: secret,
      valuesKey: 'region',
      targetPath: 'nextcloud.objectStore.s3.region',
    },
  ];
}

const fromSecret = (name: string, secret: string, key: string): V1EnvVar => ({
  name,
  valueFrom: { secretKeyRef: { name: secret, key } },
});

/**
 * A Redis of the user's: the chart knows only its own Redis subchart, the Nextcloud image reads
 * these variables itself.
 */
export function redisEnv(spec: GroupwareInstanceSpec): V1EnvVar[] {
  const secret = spec.redis?.enabled ? spec.redis.credentialsSecret : undefined;
  if (!secret) return [];
  return [
    fromSecret('REDIS_HOST', secret, 'host'),
    fromSecret('REDIS_HOST_PORT', secret, 'port'),
    fromSecret('REDIS_HOST_PASSWORD', secret, 'password'),
  ];
}

/**
 * Outgoing mail. The chart's `nextcloud.mail` reads the SMTP host and login from the admin
 * Secret, not the mail Secret the spec names, so the image's variables are set from it directly.
 */
export function mailEnv(spec: GroupwareInstanceSpec): V1EnvVar[] {
  const secret = spec.mail?.enabled ? spec.mail.credentialsSecret : undefined;
  if (!secret) return [];
  return [
    ['MAIL_FROM_ADDRESS', 'fromAddress'],
    ['MAIL_DOMAIN', 'domain'],
    ['SMTP_HOST', 'smtpHost'],
    ['SMTP_PORT', 'smtpPort'],
    ['SMTP_SECURE', 'smtpSecure'],
    ['SMTP_AUTHTYPE', 'smtpAuthType'],
    ['SMTP_NAME', 'smtpName'],
    ['SMTP_PASSWORD', 'smtpPassword'],
  ].map(([variable, key]) => fromSecret(variable, secret, key));
}
