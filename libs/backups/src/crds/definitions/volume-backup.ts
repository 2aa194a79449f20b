import { boolean, integer, object, type Schema, string } from '@platform/kube';
import {
  affinity,
  BACKUP_RESOURCE_DEFAULTS,
  backupHost,
  cache,
  conditions,
  exclude,
  jobHistory,
  jobResources,
  kubeconfig,
  nodeSelector,
  objectReference,
  observedGeneration,
  paths,
  quantityString,
  repository,
  resourceRequirements,
  resticImage,
  retention,
  tolerations,
} from './common.js';
import { webhookDeliveries, webhooks } from './webhooks.js';

/** A verification job's own resources; the backup job's when unset. */
const verificationResources = resourceRequirements(BACKUP_RESOURCE_DEFAULTS, {
  description: 'Compute resources of this job; the resources of the backup job when unset.',
});

const check = object(
  {
    enabled: boolean({ description: 'Run the check job.', default: false }),
    schedule: string({
      description: 'Cron schedule of the check job.',
      default: '0 4 * * *',
      minLength: 1,
    }),
    readDataSubset: string({
      description: 'Part of the pack data read and verified, e.g. 10%, 1/5 or 2G.',
      default: '10%',
    }),
    resources: verificationResources,
  },
  { description: 'Periodic repository check.', default: {} },
);

const restoreTest = object(
  {
    enabled: boolean({ description: 'Run the restore test job.', default: false }),
    schedule: string({
      description: 'Cron schedule of the restore test job.',
      default: '0 5 * * *',
      minLength: 1,
    }),
    storage: object(
      {
        type: string({
          description: 'Volume kind.',
          enum: ['emptyDir', 'pvc'],
          default: 'emptyDir',
        }),
        size: quantityString('Size of the scratch volume.', '5Gi'),
        storageClass: string({ description: 'Storage class of the scratch claim (type pvc).' }),
      },
      { description: 'Scratch volume the files are restored into.', default: {} },
    ),
    fileCount: integer({
      description: 'Number of files restored and verified.',
      default: 50,
      minimum: 1,
      maximum: 500,
    }),
    verifyChecksums: boolean({
      description: 'Compare checksums of the restored files with the source volume.',
      default: true,
    }),
    resources: verificationResources,
  },
  { description: 'Periodic test restore of a sample of files.', default: {} },
);

export const volumeBackupSpec = object(
  {
    volumeClaimRef: objectReference('Persistent volume claim to back up.'),
    schedule: string({
      description: 'Cron schedule of the backup job.',
      default: '0 3 * * *',
      minLength: 1,
    }),
    repository,
    paths,
    exclude,
    host: backupHost,
    retention,
    cache: cache(),
    resources: jobResources,
    image: resticImage('Always'),
    kubeconfig,
    check,
    restoreTest,
    webhooks: webhooks(
      'URL to POST to when a backup, check or restore test fails.',
      'URLs that receive a JSON POST after each backup run, and the failure URL also after a ' +
        'failed check or restore test. Deliveries are signed as Standard Webhooks (webhook-id, ' +
        'webhook-timestamp, webhook-signature) and retried with backoff; each attempt is ' +
        'recorded in status.webhookDeliveries.',
    ),
    jobConfig: jobHistory,
    suspended: boolean({ description: 'Suspend the scheduled jobs.', default: false }),
    nodeSelector,
    tolerations,
    affinity,
  },
  { description: 'Desired scheduled backup.', required: ['volumeClaimRef', 'repository'] },
);

export const BACKUP_PHASES = ['Pending', 'Running', 'Succeeded', 'Failed'] as const;

const verificationRun = <P extends Record<string, Schema<unknown, unknown, false>>>(
  description: string,
  details: P,
) =>
  object(
    {
      job: string({ description: 'Name of the job.' }),
      result: string({ description: 'Outcome of the run.', enum: ['Passed', 'Failed'] }),
      lastRun: string({ description: 'Completion time of the run.', format: 'date-time' }),
      message: string({ description: 'Human-readable outcome.' }),
      ...details,
    },
    { description, required: ['job', 'result', 'lastRun'] },
  );

export const verificationStatus = {
  check: verificationRun('Newest finished repository check.', {
    errors: integer({ description: 'Errors the repository check counted.' }),
  }),
  restoreTest: verificationRun('Newest finished restore test.', {
    snapshotId: string({ description: 'Snapshot the sample was restored from.' }),
    filesChecked: integer({ description: 'Files restored from the sample.' }),
    filesVerified: integer({ description: 'Restored files found identical to the source.' }),
    filesChanged: integer({
      description: 'Sampled files changed in the source since the snapshot (not compared).',
    }),
    mismatches: integer({ description: 'Sampled files missing or different after the restore.' }),
  }),
};

export const volumeBackupStatus = object(
  {
    phase: string({ description: 'Phase of the last backup run.', enum: BACKUP_PHASES }),
    lastBackup: string({
      description: 'Completion time of the last successful backup.',
      format: 'date-time',
    }),
    lastSnapshot: string({ description: 'Snapshot id of the last successful backup.' }),
    message: string({ description: 'Human-readable details of the phase.' }),
    volumeSize: string({ description: 'Size of the backed up data.' }),
    conditions,
    check: verificationStatus.check,
    restoreTest: verificationStatus.restoreTest,
    webhookDeliveries: webhookDeliveries(
      'backup.succeeded, backup.failed, check.failed or restoreTest.failed.',
    ),
    observedGeneration,
  },
  { description: 'Observed state.' },
);
