import { boolean, integer, object, string } from '@platform/kube';
import {
  affinity,
  cache,
  conditions,
  jobHistory,
  jobResources,
  nodeSelector,
  observedGeneration,
  PULL_POLICIES,
  repository,
  resticImage,
  retention,
  secretReference,
  tolerations,
} from './common.js';
import { BACKUP_PHASES } from './volume-backup.js';
import { webhookDeliveries, webhooks } from './webhooks.js';

/** The rclone image the bucket is copied with, pinned to a release. */
export const DEFAULT_SYNC_IMAGE = { repository: 'rclone/rclone', tag: '1.75.1' } as const;

const source = object(
  {
    bucket: string({ description: 'Bucket to back up.', minLength: 1 }),
    endpoint: string({
      description: 'S3 endpoint URL, e.g. https://s3.example.com.',
      pattern: '^https?://',
    }),
    region: string({ description: 'Region of the bucket; the endpoint default when unset.' }),
    prefix: string({
      description:
        'Only objects under this key prefix are backed up (a folder such as media/); the whole bucket when unset.',
    }),
    credentialsSecretRef: secretReference(
      'Secret in the same namespace holding the keys accessKey and secretKey, given to the copy ' +
        'as environment variables (referenced, never copied); anonymous access when unset.',
    ),
    forcePathStyle: boolean({
      description:
        'Address the bucket as <endpoint>/<bucket> (path style) rather than <bucket>.<endpoint>; most S3-compatible stores need it.',
      default: true,
    }),
  },
  { description: 'The bucket backed up.', required: ['bucket', 'endpoint'] },
);

const syncImage = object(
  {
    repository: string({
      description: 'Image repository.',
      default: DEFAULT_SYNC_IMAGE.repository,
    }),
    tag: string({ description: 'Image tag.', default: DEFAULT_SYNC_IMAGE.tag }),
    pullPolicy: string({
      description: 'Image pull policy.',
      enum: PULL_POLICIES,
      default: 'IfNotPresent',
    }),
  },
  {
    description: 'Image of rclone, which copies the bucket into the job pod before the backup.',
    default: {},
  },
);

export const s3BackupSpec = object(
  {
    source,
    schedule: string({
      description: 'Cron schedule of the backup job.',
      default: '0 3 * * *',
      minLength: 1,
    }),
    repository,
    host: string({
      description: 'Host name recorded with the snapshots; <namespace>-<source.bucket> when unset.',
    }),
    retention,
    cache: cache(
      'Volume the bucket is copied into: a persistent volume claim when enabled, so that each ' +
        'run fetches only what changed and the backup tool keeps its cache; an emptyDir of the ' +
        'job pod otherwise.',
    ),
    resources: jobResources,
    image: resticImage('Always'),
    syncImage,
    webhooks: webhooks(
      'URL to POST to when a backup fails.',
      'URLs that receive a JSON POST after each backup run. Deliveries are signed as Standard ' +
        'Webhooks (webhook-id, webhook-timestamp, webhook-signature) and retried with backoff; ' +
        'each attempt is recorded in status.webhookDeliveries.',
    ),
    jobConfig: jobHistory,
    suspended: boolean({ description: 'Suspend the scheduled jobs.', default: false }),
    nodeSelector,
    tolerations,
    affinity,
  },
  { description: 'Desired scheduled bucket backup.', required: ['source', 'repository'] },
);

export const s3BackupStatus = object(
  {
    phase: string({ description: 'Phase of the last backup run.', enum: BACKUP_PHASES }),
    lastBackup: string({
      description: 'Completion time of the last successful backup.',
      format: 'date-time',
    }),
    lastSnapshot: string({ description: 'Snapshot id of the last successful backup.' }),
    message: string({ description: 'Human-readable details of the phase.' }),
    size: string({ description: 'Size of the backed up objects, e.g. 1.5Gi.' }),
    objectCount: integer({
      description: 'Objects in the last successful backup.',
      format: 'int64',
    }),
    bytes: integer({ description: 'Bytes in the last successful backup.', format: 'int64' }),
    conditions,
    webhookDeliveries: webhookDeliveries('backup.succeeded or backup.failed.'),
    observedGeneration,
  },
  { description: 'Observed state.' },
);
