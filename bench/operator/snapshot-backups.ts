import {
  CINDER_CSI_DRIVER,
  SNAPSHOT_BACKUP_LABEL,
  VolumeSnapshotBackupKind,
} from '@platform/backups';
import { CoreKinds, type KubeClient, type KubeObject } from '@platform/kube';
import { type FakeKubeApiServer, FakeOpenStack, seedVolume } from '@platform/testing';

/** restic's summary line, as the backup container leaves it in its termination message. */
const SUMMARY = JSON.stringify({
  message_type: 'summary',
  total_bytes_processed: 1_073_741_824,
  snapshot_id: '5e1f0c2a9e8b7d6c5a4f0c2a9e8b7d6c5a4f0c2a9e8b7d6c5a4f0c2a9e8b7d6c',
});

/**
 * The VolumeSnapshotBackups of the bench: each namespace gets the OpenStack credentials
 * Secret of a fake cloud's project; each resource a Cinder CSI claim of its own volume. The
 * bench stands in for the persistent volume controller (it binds the temporary claims) and for
 * the Job controller and kubelet (it ends the backup Jobs), so every run goes to Succeeded.
 */
export class SnapshotBackupLoad {
  private constructor(
    readonly cloud: FakeOpenStack,
    private readonly server: FakeKubeApiServer,
    readonly count: number,
    private readonly namespaces: number,
  ) {}

  static async prepare(
    server: FakeKubeApiServer,
    count: number,
    namespaces: number,
  ): Promise<SnapshotBackupLoad> {
    const cloud = await FakeOpenStack.start();
    const projectId = cloud.keystone.addProject('bench').id;
    const encode = (value: string) => Buffer.from(value).toString('base64');
    for (let n = 0; n < namespaces; n++) {
      server.put(CoreKinds.Secret, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'openstack', namespace: `tenant-${n}` },
        data: {
          auth_url: encode(cloud.authUrl),
          username: encode(cloud.keystone.user.name),
          password: encode(cloud.keystone.user.password),
          project_id: encode(projectId),
          region_name: encode(cloud.region),
        },
      });
    }
    for (let i = 0; i < count; i++) {
      const namespace = `tenant-${i % namespaces}`;
      const volume = seedVolume(cloud.resources, projectId, { size: 10, status: 'in-use' });
      server.put(CoreKinds.PersistentVolume, {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: `pv-snapshot-source-${i}` },
        spec: {
          capacity: { storage: '10Gi' },
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'csi-cinder',
          csi: { driver: CINDER_CSI_DRIVER, volumeHandle: volume.id },
        },
        status: { phase: 'Bound' },
      });
      server.put(CoreKinds.PersistentVolumeClaim, {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: `snapshot-source-${i}`, namespace },
        spec: { volumeName: `pv-snapshot-source-${i}`, storageClassName: 'csi-cinder' },
        status: { phase: 'Bound' },
      });
    }
    return new SnapshotBackupLoad(cloud, server, count, namespaces);
  }

  resource(index: number): KubeObject {
    return {
      apiVersion: 'backups.k8s.neutral.com/v1',
      kind: 'VolumeSnapshotBackup',
      metadata: { name: `snapshot-${index}`, namespace: `tenant-${index % this.namespaces}` },
      spec: {
        volumeClaimRef: { name: `snapshot-source-${index}` },
        openstack: { credentialsSecretRef: { name: 'openstack' } },
        repository: {
          type: 's3',
          url: `s3:https://objects.example.test/backups/snapshot-${index}`,
          secretRef: { name: 'restic-credentials' },
        },
      },
    };
  }

  async createAll(client: KubeClient): Promise<void> {
    for (let i = 0; i < this.count; i++)
      await client.create(VolumeSnapshotBackupKind, this.resource(i));
  }

  /** Binds waiting temporary claims and ends running backup Jobs, as the cluster's controllers would. */
  actAsControllers(): void {
    for (const claim of this.server.list<KubeObject<unknown, { phase?: string }>>(
      CoreKinds.PersistentVolumeClaim,
    )) {
      if (!claim.metadata.labels?.[SNAPSHOT_BACKUP_LABEL] || claim.status?.phase === 'Bound')
        continue;
      this.server.put(CoreKinds.PersistentVolumeClaim, { ...claim, status: { phase: 'Bound' } });
    }
    for (const job of this.server.list<KubeObject<unknown, { succeeded?: number }>>(
      CoreKinds.Job,
    )) {
      if (!job.metadata.labels?.[SNAPSHOT_BACKUP_LABEL] || job.status?.succeeded) continue;
      this.finish(job);
    }
  }

  private finish(job: KubeObject): void {
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const name = job.metadata.name!;
    this.server.put(CoreKinds.Pod, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${name}-pod`,
        namespace: job.metadata.namespace,
        labels: { 'job-name': name },
      },
      status: {
        phase: 'Succeeded',
        containerStatuses: [
          {
            name: 'restic',
            state: { terminated: { exitCode: 0, finishedAt: now, message: SUMMARY } },
          },
        ],
      },
    });
    this.server.put(CoreKinds.Job, {
      ...job,
      status: {
        startTime: now,
        completionTime: now,
        succeeded: 1,
        conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: now }],
      },
    });
  }

  /** How many runs ended, and how many succeeded. */
  finished(): { ended: number; succeeded: number } {
    const phases = this.server
      .list<KubeObject<unknown, { phase?: string }>>(VolumeSnapshotBackupKind)
      .map((backup) => backup.status?.phase);
    return {
      ended: phases.filter((p) => p === 'Succeeded' || p === 'Failed').length,
      succeeded: phases.filter((p) => p === 'Succeeded').length,
    };
  }

  /** Snapshots and temporary volumes left in the cloud (one snapshot per run is retention's). */
  leftInCloud(): { snapshots: number; temporaryVolumes: number } {
    return {
      snapshots: this.cloud.resources.everywhere('snapshots').length,
      temporaryVolumes: this.cloud.resources
        .everywhere('volumes')
        .filter((volume) => volume.snapshot_id).length,
    };
  }

  close(): Promise<void> {
    return this.cloud.close();
  }
}
