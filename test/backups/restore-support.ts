import { afterAll, afterEach, beforeAll } from '@jest/globals';
import {
  VolumeBackupKind,
  type VolumeRestore,
  VolumeRestoreKind,
  type VolumeRestoreSpec,
} from '@platform/backups';
import { CoreKinds, KubeClient, type KubeObject } from '@platform/kube';
import type { FakeKubeApiServer } from '@platform/testing';
import { type BackupOperator, startBackupApiServer, startBackupOperator } from './support.js';

export const NS = 'shop';
export const REPOSITORY = {
  type: 's3' as const,
  url: 's3:https://s3.example.com/bucket/shop',
  secretRef: { name: 'repo' },
};

export type RestoreJob = KubeObject<
  {
    template: {
      spec: {
        containers: Array<{ command: string[]; env: unknown[]; envFrom: unknown[] }>;
        volumes: unknown[];
      };
    };
  },
  Record<string, unknown>
>;

export interface RestoreHarness {
  readonly server: FakeKubeApiServer;
  readonly operator: BackupOperator;
  readonly client: KubeClient;
  createRestore(name: string, spec: Partial<VolumeRestoreSpec>): Promise<VolumeRestore>;
  restoreOf(name: string): VolumeRestore;
  statusOf(name: string): NonNullable<VolumeRestore['status']>;
  jobOf(name: string): RestoreJob | undefined;
  /** Names of the restore's Jobs, sorted. */
  restoreJobs(restore: string): Array<string | undefined>;
}

/**
 * The fake API server with the backup CRDs, the operator in-process and the VolumeBackup
 * `nightly` of namespace `shop` to restore from, for the test file that calls it.
 */
export function useRestoreHarness(): RestoreHarness {
  let server: FakeKubeApiServer;
  let operator: BackupOperator;
  let client: KubeClient;

  beforeAll(async () => {
    server = await startBackupApiServer();
    client = KubeClient.fromKubeConfig(server.kubeConfig());
    operator = await startBackupOperator(server);
    await client.create(VolumeBackupKind, {
      apiVersion: 'backups.k8s.neutral.com/v1',
      kind: 'VolumeBackup',
      metadata: { name: 'nightly', namespace: NS },
      spec: { volumeClaimRef: { name: 'data' }, repository: REPOSITORY },
    });
  });

  afterAll(async () => {
    await operator?.close();
    await server?.stop();
  });

  afterEach(async () => {
    await operator.settled();
  });

  const restoreOf = (name: string) => server.get<VolumeRestore>(VolumeRestoreKind, NS, name)!;
  return {
    get server() {
      return server;
    },
    get operator() {
      return operator;
    },
    get client() {
      return client;
    },
    createRestore: (name, spec) =>
      client.create<VolumeRestore>(VolumeRestoreKind, {
        apiVersion: 'backups.k8s.neutral.com/v1',
        kind: 'VolumeRestore',
        metadata: { name, namespace: NS },
        spec: spec as VolumeRestoreSpec,
      }),
    restoreOf,
    statusOf: (name) => restoreOf(name).status ?? {},
    jobOf: (name) => server.get<RestoreJob>(CoreKinds.Job, NS, name),
    restoreJobs: (restore) =>
      server
        .list<RestoreJob>(CoreKinds.Job, NS)
        .filter(
          (job) => job.metadata.labels?.['backups.k8s.neutral.com/volume-restore'] === restore,
        )
        .map((job) => job.metadata.name)
        .sort(),
  };
}

/** A time as the API server writes it: whole seconds. */
export const iso = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
