import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { expect } from '@jest/globals';
import {
  BackupLabels,
  BackupOperatorModule,
  loadBackupCrds,
  type VolumeBackup,
  VolumeBackupKind,
  type VolumeBackupSpec,
  WEBHOOK_RETRY_POLICY,
} from '@platform/backups';
import { Clock, JsonLogger, loadConfig } from '@platform/core';
import {
  CoreKinds,
  type KindRef,
  KubeClient,
  type KubeObject,
  OperatorModule,
  OperatorRuntime,
} from '@platform/kube';
import { FakeClock, FakeKubeApiServer, expectEventually } from '@platform/testing';
import supertest from 'supertest';

const CronJobKind = CoreKinds.CronJob;
const JobKind = CoreKinds.Job;
const PodKind = CoreKinds.Pod;

export const CRD_KIND: KindRef = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
};

/** A fake API server serving the backups.k8s.neutral.com kinds from the chart's CRDs. */
export async function startBackupApiServer(): Promise<FakeKubeApiServer> {
  const server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 200 });
  const client = KubeClient.fromKubeConfig(server.kubeConfig());
  for (const crd of loadBackupCrds()) await client.create(CRD_KIND, crd as unknown as KubeObject);
  return server;
}

export interface BackupOperator {
  app: INestApplication;
  clock: FakeClock;
  runtime: OperatorRuntime;
  /** The operator's Prometheus exposition. */
  metrics(): Promise<string>;
  /** Moves the clock (resync, requeues) and lets the work it makes due finish. */
  advance(by: Parameters<FakeClock['advance']>[0]): Promise<void>;
  /** Resolves when nothing is queued or running (webhook attempts run inside reconciles). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export const RESYNC_PERIOD_SECONDS = 600;
/** Where the operator's fake clock starts (condition transition times). */
export const OPERATOR_CLOCK_START = '2024-05-03T06:00:00Z';

/**
 * The backup operator, in-process, as apps/backup-operator composes it: probes, metrics, the
 * runtime (no leader election: one replica) and its reconcilers, against `server`, with a fake
 * clock (resyncs, requeues and webhook retries happen when the test moves it) and short
 * webhook backoff (50 ms doubling to 400 ms, five attempts).
 */
export async function startBackupOperator(server: FakeKubeApiServer): Promise<BackupOperator> {
  const clock = new FakeClock(OPERATOR_CLOCK_START);
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    LEADER_ELECTION: 'false',
    RESYNC_PERIOD_SECONDS: String(RESYNC_PERIOD_SECONDS),
    // The webhook receivers listen on 127.0.0.1.
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  const logger = JsonLogger.create('backup-operator', config.logLevel);
  const moduleRef = await Test.createTestingModule({
    imports: [
      OperatorModule.forRoot(config, [
        BackupOperatorModule.forRoot({
          providers: [
            { provide: KubeClient, useValue: KubeClient.fromKubeConfig(server.kubeConfig()) },
            {
              provide: WEBHOOK_RETRY_POLICY,
              useValue: { attempts: 5, initialDelayMs: 50, maxDelayMs: 400, timeoutMs: 2000 },
            },
          ],
          timing: { clockCheckMs: 20, retryBaseMs: 50, retryMaxMs: 1000 },
        }),
      ]),
    ],
  })
    .overrideProvider(Clock)
    .useValue(clock)
    .compile();
  const app = moduleRef.createNestApplication({ logger });
  await app.init();
  const runtime = app.get(OperatorRuntime, { strict: false });
  await runtime.whenSynced();
  const settled = () => runtime.idle();
  return {
    app,
    clock,
    runtime,
    metrics: async () =>
      (await supertest(app.getHttpServer() as Parameters<typeof supertest>[0]).get('/metrics'))
        .text,
    advance: async (by) => {
      clock.advance(by);
      // The runtime looks at the clock every clockCheckMs; give it a few looks.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await settled();
    },
    settled,
    close: () => app.close(),
  };
}

type CronJobObject = KubeObject<{
  jobTemplate: {
    metadata?: { labels?: Record<string, string> };
    spec: Record<string, unknown> & { template: { spec: unknown } };
  };
}>;

export interface JobRun {
  /** The Job's name, as the CronJob controller would choose it. */
  job: string;
  startTime: string;
}

/**
 * Starts a Job of a CronJob as the CronJob controller does (the template's labels, the CronJob
 * as its controller owner) with a running pod, as the Job controller would.
 */
export function startCronJobRun(
  server: FakeKubeApiServer,
  namespace: string,
  cronJobName: string,
  run: JobRun,
): void {
  const cron = server.get<CronJobObject>(CronJobKind, namespace, cronJobName);
  if (!cron) throw new Error(`no CronJob ${namespace}/${cronJobName}`);
  const labels = cron.spec!.jobTemplate.metadata?.labels ?? {};
  const job = server.put<KubeObject>(JobKind, {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: run.job,
      namespace,
      labels,
      ownerReferences: [
        {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          name: cronJobName,
          uid: cron.metadata.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: cron.spec!.jobTemplate.spec,
    status: { active: 1, startTime: run.startTime },
  });
  server.put(PodKind, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${run.job}-pod`,
      namespace,
      labels: { ...labels, 'job-name': run.job, 'batch.kubernetes.io/job-name': run.job },
      ownerReferences: [
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          name: run.job,
          uid: job.metadata.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: cron.spec!.jobTemplate.spec.template.spec,
    status: { phase: 'Running', containerStatuses: [{ name: 'restic', state: { running: {} } }] },
  });
}

/**
 * Ends a run as the kubelet and the Job controller would: the restic container terminates
 * with `terminationMessage`, then the Job gets its Complete or Failed condition.
 */
export function finishCronJobRun(
  server: FakeKubeApiServer,
  namespace: string,
  run: JobRun,
  outcome: { succeeded: boolean; completionTime: string; terminationMessage?: string },
): void {
  const pod = server.get<KubeObject>(PodKind, namespace, `${run.job}-pod`)!;
  server.put(PodKind, {
    ...pod,
    status: {
      phase: outcome.succeeded ? 'Succeeded' : 'Failed',
      containerStatuses: [
        {
          name: 'restic',
          state: {
            terminated: {
              exitCode: outcome.succeeded ? 0 : 1,
              reason: outcome.succeeded ? 'Completed' : 'Error',
              finishedAt: outcome.completionTime,
              ...(outcome.terminationMessage ? { message: outcome.terminationMessage } : {}),
            },
          },
        },
      ],
    },
  });
  const job = server.get<KubeObject>(JobKind, namespace, run.job)!;
  server.put(JobKind, {
    ...job,
    status: outcome.succeeded
      ? {
          startTime: run.startTime,
          completionTime: outcome.completionTime,
          succeeded: 1,
          conditions: [
            { type: 'Complete', status: 'True', lastTransitionTime: outcome.completionTime },
          ],
        }
      : {
          startTime: run.startTime,
          failed: 3,
          conditions: [
            {
              type: 'Failed',
              status: 'True',
              reason: 'BackoffLimitExceeded',
              message: 'Job has reached the specified backoff limit',
              lastTransitionTime: outcome.completionTime,
            },
          ],
        },
  });
}

/** restic's `backup --json` summary line, as the backup container writes it to its termination message. */
export function resticSummaryLine(snapshotId: string, totalBytesProcessed: number): string {
  return JSON.stringify({
    message_type: 'summary',
    files_new: 12,
    files_changed: 3,
    files_unmodified: 840,
    dirs_new: 1,
    dirs_changed: 2,
    dirs_unmodified: 60,
    data_blobs: 14,
    tree_blobs: 4,
    data_added: 5_242_880,
    data_added_packed: 4_718_592,
    total_files_processed: 855,
    total_bytes_processed: totalBytesProcessed,
    total_duration: 42.7,
    backup_start: '2024-05-03T03:00:02Z',
    backup_end: '2024-05-03T03:00:45Z',
    snapshot_id: snapshotId,
  });
}

/** Snapshot id, byte count and times of the backup runs the tests simulate. */
export const RUN = {
  snapshot: '4f0c2a9e8b7d6c5a4f0c2a9e8b7d6c5a4f0c2a9e8b7d6c5a4f0c2a9e8b7d6c5a',
  /** 1.5 GiB. */
  processedBytes: 1_610_612_736,
  started: '2024-05-03T03:00:00Z',
  completed: '2024-05-03T03:04:10Z',
};

export type CronJob = KubeObject<{
  schedule: string;
  suspend: boolean;
  jobTemplate: { spec: { template: { spec: { containers: Array<Record<string, unknown>> } } } };
}>;

/**
 * Shortcuts of the VolumeBackup tests: `cluster()` gives the API server and a client of it once
 * the file's beforeAll has started them.
 */
export function volumeBackupHelpers(cluster: () => { server: FakeKubeApiServer; api: KubeClient }) {
  const spec = (overrides: Partial<VolumeBackupSpec> = {}): VolumeBackupSpec => ({
    volumeClaimRef: { name: 'app-data' },
    schedule: '15 1 * * *',
    repository: {
      type: 's3',
      url: 's3:https://objects.example.test/backups/app',
      secretRef: { name: 'restic-credentials' },
    },
    ...overrides,
  });
  const backupOf = (namespace: string, name: string) =>
    cluster().server.get<VolumeBackup>(VolumeBackupKind, namespace, name);
  return {
    create: (namespace: string, name: string, overrides: Partial<VolumeBackupSpec> = {}) =>
      cluster().api.create<VolumeBackup>(VolumeBackupKind, {
        apiVersion: 'backups.k8s.neutral.com/v1',
        kind: 'VolumeBackup',
        metadata: { name, namespace },
        spec: spec(overrides),
      }),
    backupOf,
    cronJob: (namespace: string, name: string, server = cluster().server) =>
      server.get<CronJob>(CoreKinds.CronJob, namespace, name),
    claim: (namespace: string, name: string, server = cluster().server) =>
      server.get<KubeObject>(CoreKinds.PersistentVolumeClaim, namespace, name),
    /** Names of the objects of a kind in a namespace, sorted. */
    names: (server: FakeKubeApiServer, kind: KindRef, namespace: string) =>
      server
        .list<KubeObject>(kind, namespace)
        .map((o) => o.metadata.name)
        .sort(),
    /** Resolves once the operator has written a status for the current generation. */
    reconciled: (namespace: string, name: string) =>
      expectEventually(() => {
        const backup = backupOf(namespace, name)!;
        expect(backup.status?.observedGeneration).toBe(backup.metadata.generation);
        return backup;
      }),
  };
}

/** The Standard Webhooks key of the tests' webhook Secrets (`backup-hooks`, key `secret`). */
export const SIGNING_SECRET = `whsec_${Buffer.from('backup-operator-test-signing-key').toString('base64')}`;

/** The Secret `webhooks.secretRef: {name: backup-hooks}` names, in `namespace`. */
export function createSigningSecret(api: KubeClient, namespace: string, name = 'backup-hooks') {
  return api.create<KubeObject>(CoreKinds.Secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    data: { secret: Buffer.from(SIGNING_SECRET).toString('base64') },
  } as KubeObject);
}

/** The labels the operator puts on a VolumeBackup's objects (and with a job type, its CronJobs'). */
export function childLabels(name: string, jobType?: string): Record<string, string> {
  return {
    [BackupLabels.managedBy]: 'backup-operator',
    [BackupLabels.volumeBackup]: name,
    ...(jobType ? { [BackupLabels.jobType]: jobType } : {}),
  };
}
