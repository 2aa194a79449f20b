import { array, boolean, integer, map, narrowed, number, object, string } from '@platform/kube';
import {
  ACCESS_MODES,
  affinity,
  conditions,
  jobResources,
  kubeconfig,
  nodeSelector,
  objectReference,
  observedGeneration,
  quantityString,
  REPOSITORY_TYPE_DESCRIPTION,
  REPOSITORY_TYPES,
  resticImage,
  secretReference,
  tolerations,
} from './common.js';

const snapshotId = string({
  description: 'Snapshot to restore; the newest when neither snapshotId nor snapshotDate is set.',
});
const snapshotDate = string({
  description: 'Restore the newest snapshot taken at or before this time.',
  format: 'date-time',
});
const oneSnapshotChoice = {
  rule: '!(has(self.snapshotId) && has(self.snapshotDate))',
  message: 'set snapshotId or snapshotDate, not both',
};

const sourceBackup = object(
  {
    volumeBackupRef: objectReference('VolumeBackup whose repository and host are restored from.'),
    snapshotId,
    snapshotDate,
  },
  {
    description: 'Restore from the repository of a VolumeBackup.',
    required: ['volumeBackupRef'],
    validations: [oneSnapshotChoice],
  },
);

const sourceRepository = object(
  {
    type: string({ description: REPOSITORY_TYPE_DESCRIPTION, enum: REPOSITORY_TYPES }),
    url: string({ description: 'Repository URL with the backend prefix.', minLength: 1 }),
    secretRef: secretReference('Secret with the repository password and backend credentials.'),
    host: string({ description: 'Host whose snapshots are considered.' }),
    snapshotId,
    snapshotDate,
  },
  {
    description: 'Restore from a repository given directly.',
    required: ['type', 'url', 'secretRef'],
    validations: [oneSnapshotChoice],
  },
);

const targetPVC = object(
  {
    createNew: boolean({
      description: 'Create the claim; false restores into an existing claim.',
      default: true,
    }),
    name: string({ description: 'Name of the claim; <name>-restored when unset.' }),
    storageClass: string({ description: 'Storage class of a new claim.' }),
    size: quantityString('Size of a new claim.'),
    accessMode: string({
      description: 'Access mode of a new claim.',
      enum: ACCESS_MODES,
      default: 'ReadWriteOnce',
    }),
    annotations: map(string(), { description: 'Annotations of a new claim.' }),
    labels: map(string(), { description: 'Labels of a new claim.' }),
  },
  {
    description: 'Persistent volume claim restored into.',
    validations: [
      {
        rule: 'self.createNew || has(self.name)',
        message: 'name is required when createNew is false',
      },
    ],
  },
);

const restoreSpec = object(
  {
    paths: array(string(), {
      description: 'Paths restored, relative to the snapshot root.',
      default: ['/'],
      minItems: 1,
    }),
    exclude: array(string(), { description: 'Patterns not restored.' }),
    targetPath: string({
      description: 'Directory inside the claim the files are restored into.',
      default: '/',
    }),
    overwrite: string({
      description: 'When existing files are overwritten.',
      enum: ['always', 'if-changed', 'if-newer', 'never'],
      default: 'always',
    }),
  },
  { description: 'What is restored and how.', default: {} },
);

const jobCount = (description: string) =>
  integer({ description, default: 3, minimum: 0, maximum: 10 });

const restoreJobConfig = object(
  {
    retries: jobCount('Further attempts, each a new Job, after a failed one.'),
    backoffLimit: integer({ description: 'Pod retries within one Job.', default: 6, minimum: 0 }),
    activeDeadlineSeconds: integer({
      description: 'Time limit of one Job.',
      minimum: 1,
      format: 'int64',
    }),
    keepSuccessfulJobs: jobCount('Successful jobs kept.'),
    keepFailedJobs: jobCount('Failed jobs kept.'),
  },
  { description: 'Attempts and job limits.', default: {} },
);

export const volumeRestoreSpec = object(
  {
    sourceBackup,
    sourceRepository,
    targetPVC,
    restoreSpec,
    jobConfig: restoreJobConfig,
    resources: jobResources,
    image: resticImage('Always'),
    kubeconfig,
    nodeSelector,
    tolerations,
    affinity,
  },
  {
    description: 'Desired one-time restore.',
    required: ['targetPVC'],
    validations: [
      {
        rule: 'has(self.sourceBackup) != has(self.sourceRepository)',
        message: 'set exactly one of sourceBackup and sourceRepository',
      },
    ],
  },
);

export const RESTORE_PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'Retrying'] as const;

const count = (description: string) => integer({ description, format: 'int64' });

const progress = object(
  {
    filesTotal: count('Files to restore.'),
    filesRestored: count('Files restored.'),
    bytesTotal: count('Bytes to restore.'),
    bytesRestored: count('Bytes restored.'),
    percentComplete: number({
      description: 'Share restored, in percent.',
      minimum: 0,
      maximum: 100,
    }),
  },
  { description: 'Progress of the running attempt.' },
);

const sourceInfo = object(
  {
    snapshotId: string({ description: 'Snapshot id.' }),
    snapshotDate: string({ description: 'Time the snapshot was taken.' }),
    repository: string({ description: 'Repository URL.' }),
    host: string({ description: 'Host of the snapshot.' }),
    paths: array(string(), { description: 'Paths of the snapshot.' }),
  },
  { description: 'Snapshot restored.' },
);

const targetInfo = object(
  {
    pvcName: string({ description: 'Name of the claim.' }),
    pvcNamespace: string({ description: 'Namespace of the claim.' }),
    storageClass: string({ description: 'Storage class of the claim.' }),
    size: string({ description: 'Size of the claim.' }),
    created: boolean({ description: 'Whether the restore created the claim.' }),
  },
  { description: 'Claim restored into.' },
);

const attemptTime = (description: string) => string({ description, format: 'date-time' });

export const RESTORE_JOB_PHASES = ['Pending', 'Running', 'Succeeded', 'Failed'] as const;

const jobRecord = object({
  jobName: string({ description: 'Name of the Job.' }),
  attempt: integer({ description: 'Attempt number.' }),
  // Free text in the schema; the operator writes one of RESTORE_JOB_PHASES.
  phase: narrowed<(typeof RESTORE_JOB_PHASES)[number]>()(
    string({ description: 'Outcome of the attempt.' }),
  ),
  startTime: attemptTime('Start of the attempt.'),
  completionTime: attemptTime('End of the attempt.'),
  message: string({ description: 'Details of the outcome.' }),
});

const jobInfo = object(
  {
    currentJob: string({ description: 'Name of the Job of the current attempt.' }),
    attempt: integer({ description: 'Current attempt, from 1.' }),
    totalAttempts: integer({ description: 'Attempts allowed (1 + retries).' }),
    jobHistory: array(jobRecord, { description: 'Attempts so far.' }),
  },
  { description: 'Jobs of the restore.' },
);

export const volumeRestoreStatus = object(
  {
    phase: string({ description: 'Phase of the restore.', enum: RESTORE_PHASES }),
    startTime: attemptTime('Start of the first attempt.'),
    completionTime: attemptTime('End of the last attempt.'),
    duration: string({ description: 'Time from start to completion, e.g. 2m13s.' }),
    message: string({ description: 'Human-readable details of the phase.' }),
    progress,
    sourceInfo,
    targetInfo,
    jobInfo,
    conditions,
    observedGeneration,
  },
  { description: 'Observed state.' },
);
