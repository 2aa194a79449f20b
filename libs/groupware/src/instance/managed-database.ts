import type { KubeObject } from '@platform/kube';
import type { GroupwareInstance } from '../crds/types.js';
import { instanceObjectNames, ownedMetadata } from './instance-names.js';

export type PostgresCluster = KubeObject<
  Record<string, unknown>,
  { phase?: string; readyInstances?: number; instances?: number }
>;

/** CloudNativePG's phase of a cluster that serves. */
const HEALTHY = 'Cluster in healthy state';
/** Phases CloudNativePG reports when it cannot go on without a change (e.g. "Unable to create required cluster objects"). */
const BROKEN = /unable|cannot|failed|error/i;

/** The CloudNativePG Cluster `<name>-db` of an instance with `database.managed: true`. */
export function postgresCluster(instance: GroupwareInstance): PostgresCluster {
  const name = instance.metadata.name!;
  const database = instance.spec!.database;
  const postgres = database.postgres;
  const backup = postgres?.backup;
  const s3 = backup?.enabled ? backup.s3 : undefined;
  const credentials = s3?.credentialsSecret;
  return {
    apiVersion: 'postgresql.cnpg.io/v1',
    kind: 'Cluster',
    metadata: ownedMetadata(instance, instanceObjectNames(name).database),
    spec: {
      instances: postgres?.replicas ?? 1,
      storage: { size: postgres?.storage?.size ?? '10Gi' },
      bootstrap: { initdb: { database: database.name, owner: database.user } },
      backup: s3
        ? {
            retentionPolicy: '30d',
            barmanObjectStore: {
              destinationPath: `s3://${s3.bucket}/${instance.metadata.namespace}/${name}`,
              endpointURL: s3.endpoint,
              s3Credentials: credentials
                ? {
                    accessKeyId: { name: credentials, key: 'accessKey' },
                    secretAccessKey: { name: credentials, key: 'secretKey' },
                  }
                : undefined,
            },
          }
        : null,
    },
  };
}

export type DatabaseState =
  { state: 'healthy' } | { state: 'starting' } | { state: 'failed'; message: string };

export function databaseState(cluster: PostgresCluster | undefined): DatabaseState {
  const phase = cluster?.status?.phase;
  if (!cluster || !phase) return { state: 'starting' };
  if (phase === HEALTHY) return { state: 'healthy' };
  if (BROKEN.test(phase)) {
    return { state: 'failed', message: `Cluster ${cluster.metadata.name}: ${phase}` };
  }
  return { state: 'starting' };
}
