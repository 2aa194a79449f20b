import { boolean, integer, object, string } from '@platform/kube';
import {
  affinity,
  backupHost,
  conditions,
  exclude,
  nodeSelector,
  objectReference,
  observedGeneration,
  paths,
  quantityString,
  resourceRequirements,
  resticImage,
  retention,
  secretReference,
  tolerations,
} from './common.js';

const openstack = object(
  {
    credentialsSecretRef: secretReference('Secret with the OpenStack credentials.'),
    region: string({ description: 'OpenStack region.' }),
    autoDiscover: boolean({
      description: 'Find the Cinder volume of the claim from its persistent volume.',
      default: true,
    }),
  },
  { description: 'OpenStack block storage access.', default: {} },
);

const snapshot = object(
  {
    force: boolean({ description: 'Snapshot a volume that is attached.', default: true }),
    timeout: integer({
      description: 'Seconds to wait for the snapshot to become available.',
      default: 600,
      minimum: 1,
    }),
    namePrefix: string({ description: 'Prefix of snapshot names.', default: 'backup' }),
    retention: object(
      {
        keepLast: integer({ description: 'Keep the last n snapshots.', default: 3, minimum: 0 }),
        keepForDays: integer({
          description: 'Keep snapshots younger than n days.',
          default: 7,
          minimum: 0,
        }),
      },
      { description: 'Snapshots kept after the backup.', default: {} },
    ),
  },
  { description: 'Block storage snapshot taken before the backup.', default: {} },
);

const temporaryVolume = object(
  {
    storageClass: string({ description: 'Storage class of the temporary claim.' }),
    timeout: integer({
      description: 'Seconds to wait for the temporary volume to become bound.',
      default: 300,
      minimum: 1,
    }),
  },
  { description: 'Volume created from the snapshot and backed up.', default: {} },
);

// Unlike the other kinds, this CRD still lists local and sftp.
const repository = object(
  {
    type: string({
      description: 'Repository backend.',
      enum: ['s3', 'gcs', 'azure', 'local', 'sftp', 'rest'],
    }),
    url: string({
      description:
        'Repository URL with the backend prefix, e.g. s3:https://s3.example.com/bucket/path.',
      minLength: 1,
    }),
    secretRef: secretReference(
      'Secret with the repository password and backend credentials, passed to the job as environment variables.',
    ),
  },
  {
    description: 'Backup repository the backup tool writes to.',
    required: ['type', 'url', 'secretRef'],
  },
);

const cache = object(
  {
    enabled: boolean({
      description: 'Keep the backup tool cache on a persistent volume claim.',
      default: false,
    }),
    size: quantityString('Size of the cache claim.', '1Gi'),
    storageClass: string({
      description: 'Storage class of the cache claim; the cluster default when unset.',
    }),
  },
  { description: 'Persistent cache of the backup tool.', default: {} },
);

export const volumeSnapshotBackupSpec = object(
  {
    volumeClaimRef: objectReference('Persistent volume claim to back up.'),
    openstack,
    snapshot,
    temporaryVolume,
    repository,
    host: backupHost,
    paths,
    exclude,
    retention,
    cache,
    resources: resourceRequirements(
      { requests: { memory: '256Mi', cpu: '200m' }, limits: { memory: '2Gi', cpu: '2000m' } },
      { description: 'Compute resources of the job container.', default: {} },
    ),
    image: resticImage('IfNotPresent'),
    nodeSelector,
    tolerations,
    affinity,
  },
  { description: 'Desired snapshot-based backup.', required: ['volumeClaimRef', 'repository'] },
);

export const SNAPSHOT_BACKUP_PHASES = [
  'Pending',
  'CreatingSnapshot',
  'CreatingVolume',
  'Backup',
  'Cleanup',
  'Succeeded',
  'Failed',
] as const;

export const volumeSnapshotBackupStatus = object(
  {
    phase: string({
      description: 'Phase of the current or last run.',
      enum: SNAPSHOT_BACKUP_PHASES,
    }),
    message: string({ description: 'Human-readable details of the phase.' }),
    currentSnapshot: object(
      {
        id: string({ description: 'Snapshot id.' }),
        name: string({ description: 'Snapshot name.' }),
        cinderVolumeId: string({ description: 'Id of the snapshotted Cinder volume.' }),
        status: string({ description: 'Snapshot status.' }),
        createdAt: string({ description: 'Creation time of the snapshot.' }),
        sizeGB: integer({ description: 'Snapshot size in GB.' }),
      },
      { description: 'Block storage snapshot of the current run.' },
    ),
    temporaryVolume: object(
      {
        pvcName: string({ description: 'Name of the temporary claim.' }),
        pvName: string({ description: 'Name of the temporary persistent volume.' }),
        cinderVolumeId: string({ description: 'Id of the temporary Cinder volume.' }),
        status: string({ description: 'Volume status.' }),
      },
      { description: 'Temporary volume of the current run.' },
    ),
    backupJob: object(
      {
        name: string({ description: 'Name of the Job.' }),
        status: string({ description: 'Job status.' }),
        startTime: string({ description: 'Start of the Job.', format: 'date-time' }),
        completionTime: string({ description: 'End of the Job.', format: 'date-time' }),
      },
      { description: 'Backup job of the current run.' },
    ),
    lastBackup: object(
      {
        timestamp: string({ description: 'Completion time.', format: 'date-time' }),
        status: string({ description: 'Outcome.' }),
        duration: string({ description: 'Duration, e.g. 4m2s.' }),
      },
      { description: 'Last finished backup.' },
    ),
    conditions,
    observedGeneration,
  },
  { description: 'Observed state.' },
);
