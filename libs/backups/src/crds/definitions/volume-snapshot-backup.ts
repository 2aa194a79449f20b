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
  repository,
  resourceRequirements,
  resticImage,
  retention,
  secretReference,
  tolerations,
} from './common.js';
import { webhookDeliveries, webhooks } from './webhooks.js';

const openstack = object(
  {
    credentialsSecretRef: secretReference(
      'Secret with the OpenStack credentials, under the clouds.yaml names or their OS_ ' +
        'environment names: auth_url (OS_AUTH_URL, Keystone v3); either username, password, ' +
        'user_domain_name (default Default) and project_id or project_name with ' +
        'project_domain_name (default Default), or application_credential_id and ' +
        'application_credential_secret; region_name (OS_REGION_NAME) unless openstack.region ' +
        'is set.',
    ),
    region: string({ description: 'OpenStack region.' }),
    autoDiscover: boolean({
      description:
        'Find the Cinder volume of the claim from its persistent volume (the Cinder CSI volume ' +
        "handle); when false, the claim's annotation backups.k8s.neutral.com/cinder-volume-id " +
        'names it.',
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
    webhooks: webhooks(
      'URL to POST to when the run fails (snapshot, temporary volume or backup).',
      'URLs that receive a JSON POST when the run ends. Deliveries are signed as Standard ' +
        'Webhooks (webhook-id, webhook-timestamp, webhook-signature) and retried with backoff; ' +
        'each attempt is recorded in status.webhookDeliveries.',
    ),
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
    webhookDeliveries: webhookDeliveries('backup.succeeded or backup.failed.'),
    observedGeneration,
  },
  { description: 'Observed state.' },
);
