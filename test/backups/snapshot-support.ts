import { expect } from '@jest/globals';
import {
  CINDER_CSI_DRIVER,
  type VolumeSnapshotBackup,
  VolumeSnapshotBackupKind,
  type VolumeSnapshotBackupPhase,
  type VolumeSnapshotBackupSpec,
} from '@platform/backups';
import { CoreKinds, KubeClient, type KubeObject } from '@platform/kube';
import {
  expectEventually,
  FakeOpenStack,
  type FakeKubeApiServer,
  seedVolume,
} from '@platform/testing';
import { type BackupOperator, startBackupApiServer, startBackupOperator } from './support.js';

const encode = (value: string) => Buffer.from(value).toString('base64');

/**
 * A cluster with a Cinder CSI claim (`app-data` in each namespace the test prepares, its
 * volume attached to a node) on the fake API server, the fake OpenStack holding that volume
 * in the project `backups`, and the backup operator in-process on a fake clock that is also
 * the fake Cinder's clock.
 */
export interface SnapshotEnvironment {
  server: FakeKubeApiServer;
  api: KubeClient;
  cloud: FakeOpenStack;
  operator: BackupOperator;
  projectId: string;
}

export async function startSnapshotEnvironment(): Promise<SnapshotEnvironment> {
  const server = await startBackupApiServer();
  const api = KubeClient.fromKubeConfig(server.kubeConfig());
  const cloud = await FakeOpenStack.start();
  const projectId = cloud.keystone.addProject('backups').id;
  const operator = await startBackupOperator(server);
  cloud.cinder.now = () => operator.clock.now().getTime();
  return { server, api, cloud, operator, projectId };
}

export async function stopSnapshotEnvironment(env: SnapshotEnvironment | undefined) {
  await env?.operator.close();
  await env?.cloud.close();
  await env?.server.stop();
}

/**
 * The source in `namespace`: an attached Cinder volume, its CSI persistent volume and the bound
 * claim `app-data`; the credentials Secret `openstack` (clouds.yaml names) and the restic
 * Secret. Answers the Cinder volume's id.
 */
export async function prepareNamespace(
  env: SnapshotEnvironment,
  namespace: string,
  credentials: Record<string, string> = passwordCredentials(env),
): Promise<string> {
  const volume = seedVolume(env.cloud.resources, env.projectId, {
    name: `pvc-${namespace}`,
    size: 20,
    status: 'in-use',
    attachments: [{ server_id: 'node-1', attachment_id: 'a-1', device: '/dev/vdb' }],
  });
  const pvName = `pvc-${namespace}-app-data`;
  env.server.put(CoreKinds.PersistentVolume, {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: pvName },
    spec: {
      capacity: { storage: '20Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: 'csi-cinder-sc-delete',
      csi: { driver: CINDER_CSI_DRIVER, volumeHandle: volume.id, fsType: 'ext4' },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                { key: 'topology.cinder.csi.openstack.org/zone', operator: 'In', values: ['nova'] },
              ],
            },
          ],
        },
      },
    },
    status: { phase: 'Bound' },
  });
  env.server.put(CoreKinds.PersistentVolumeClaim, {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'app-data', namespace },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '20Gi' } },
      storageClassName: 'csi-cinder-sc-delete',
      volumeName: pvName,
    },
    status: { phase: 'Bound' },
  });
  await env.api.create(CoreKinds.Secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'openstack', namespace },
    data: Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k, encode(v)])),
  } as KubeObject);
  return volume.id;
}

/** clouds.yaml keys of the fake's user in the project `backups` (by name). */
export function passwordCredentials(env: SnapshotEnvironment): Record<string, string> {
  return {
    auth_url: env.cloud.authUrl,
    username: env.cloud.keystone.user.name,
    password: env.cloud.keystone.user.password,
    user_domain_name: 'Default',
    project_name: 'backups',
    project_domain_name: 'Default',
    region_name: env.cloud.region,
  };
}

export function snapshotBackupSpec(
  overrides: Partial<VolumeSnapshotBackupSpec> = {},
): VolumeSnapshotBackupSpec {
  return {
    volumeClaimRef: { name: 'app-data' },
    openstack: { credentialsSecretRef: { name: 'openstack' } },
    repository: {
      type: 's3',
      url: 's3:https://objects.example.test/backups/app',
      secretRef: { name: 'restic-credentials' },
    },
    ...overrides,
  };
}

export function createSnapshotBackup(
  env: SnapshotEnvironment,
  namespace: string,
  name: string,
  overrides: Partial<VolumeSnapshotBackupSpec> = {},
) {
  return env.api.create<VolumeSnapshotBackup>(VolumeSnapshotBackupKind, {
    apiVersion: 'backups.k8s.neutral.com/v1',
    kind: 'VolumeSnapshotBackup',
    metadata: { name, namespace },
    spec: snapshotBackupSpec(overrides),
  });
}

export const snapshotBackupOf = (env: SnapshotEnvironment, namespace: string, name: string) =>
  env.server.get<VolumeSnapshotBackup>(VolumeSnapshotBackupKind, namespace, name);

/** Resolves once the resource is in `phase`; answers it. */
export function inPhase(
  env: SnapshotEnvironment,
  namespace: string,
  name: string,
  phase: VolumeSnapshotBackupPhase,
) {
  return expectEventually(() => {
    const backup = snapshotBackupOf(env, namespace, name)!;
    expect(backup.status?.phase).toBe(phase);
    return backup;
  });
}

/** Every phase the resource's status goes through, from a watch started before it exists. */
export function recordPhases(env: SnapshotEnvironment, namespace: string) {
  const phases = new Map<string, string[]>();
  const handle = env.api.watch<VolumeSnapshotBackup>(
    VolumeSnapshotBackupKind,
    namespace,
    { resourceVersion: env.server.resourceVersion },
    (event) => {
      const name = event.object.metadata.name ?? '';
      const seen = phases.get(name) ?? [];
      const phase = event.object.status?.phase;
      if (phase && seen.at(-1) !== phase) seen.push(phase);
      phases.set(name, seen);
    },
  );
  return { of: (name: string) => phases.get(name) ?? [], stop: () => handle.stop() };
}

/** Binds the temporary claim as the persistent volume controller would (it names its volume). */
export function bindClaim(env: SnapshotEnvironment, namespace: string, name: string): void {
  const claim = env.server.get<KubeObject>(CoreKinds.PersistentVolumeClaim, namespace, name)!;
  env.server.put(CoreKinds.PersistentVolumeClaim, { ...claim, status: { phase: 'Bound' } });
}

/** Cinder's snapshots and volumes in the project, for assertions. */
export function cinderState(env: SnapshotEnvironment) {
  return {
    snapshots: [...env.cloud.resources.collection(env.projectId, 'snapshots').values()],
    volumes: [...env.cloud.resources.collection(env.projectId, 'volumes').values()],
  };
}

/**
 * Runs the backup Job to its end as the Job controller and the kubelet would: a pod whose
 * restic container terminated with `terminationMessage`, then the Job's condition.
 */
export function finishJob(
  env: SnapshotEnvironment,
  namespace: string,
  jobName: string,
  outcome: { succeeded: boolean; terminationMessage: string; start: string; end: string },
): void {
  const job = env.server.get<KubeObject>(CoreKinds.Job, namespace, jobName)!;
  env.server.put(CoreKinds.Pod, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${jobName}-x1`,
      namespace,
      labels: { 'job-name': jobName, 'batch.kubernetes.io/job-name': jobName },
      ownerReferences: [
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          name: jobName,
          uid: job.metadata.uid!,
          controller: true,
        },
      ],
    },
    spec: (job.spec as { template: { spec: unknown } }).template.spec,
    status: {
      phase: outcome.succeeded ? 'Succeeded' : 'Failed',
      containerStatuses: [
        {
          name: 'restic',
          state: {
            terminated: {
              exitCode: outcome.succeeded ? 0 : 1,
              finishedAt: outcome.end,
              message: outcome.terminationMessage,
            },
          },
        },
      ],
    },
  });
  env.server.put(CoreKinds.Job, {
    ...job,
    status: outcome.succeeded
      ? {
          startTime: outcome.start,
          completionTime: outcome.end,
          succeeded: 1,
          conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: outcome.end }],
        }
      : {
          startTime: outcome.start,
          failed: 3,
          conditions: [
            {
              type: 'Failed',
              status: 'True',
              reason: 'BackoffLimitExceeded',
              message: 'Job has reached the specified backoff limit',
              lastTransitionTime: outcome.end,
            },
          ],
        },
  });
}

/** A snapshot the operator made for `source` in an earlier run, `ageDays` before `now`. */
export function seedOperatorSnapshot(
  env: SnapshotEnvironment,
  volumeId: string,
  source: string,
  name: string,
  ageDays: number,
) {
  const created = new Date(env.operator.clock.now().getTime() - ageDays * 86_400_000);
  return env.cloud.resources.add(env.projectId, 'snapshots', {
    name,
    description: null,
    status: 'available',
    size: 20,
    volume_id: volumeId,
    metadata: { 'managed-by': 'backup-operator', 'backups.k8s.neutral.com/source': source },
    created_at: created.toISOString().replace(/Z$/, '000'),
    updated_at: null,
  });
}

/**
 * Stops the operator as a crash would end it between two steps, and starts a new one on the
 * same cluster and cloud: what it knows of the runs is only what status and Cinder hold.
 */
export async function restartOperator(env: SnapshotEnvironment): Promise<void> {
  await env.operator.close();
  env.operator = await startBackupOperator(env.server);
  env.cloud.cinder.now = () => env.operator.clock.now().getTime();
}
