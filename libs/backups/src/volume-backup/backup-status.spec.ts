import { describe, expect, it } from '@jest/globals';
import type { BackupSummary } from '../render/volume-backup.js';
import { type BackupRun, type BackupRuns } from './backup-runs.js';
import {
  type BackupStatusFields,
  buildBackupStatus,
  buildProblemStatus,
  needsFailureDetail,
  needsSummary,
} from './backup-status.js';

const NOW = '2024-05-03T06:00:00Z';
const now = new Date(NOW);
const earlier = '2024-05-01T00:00:00Z';

const run = (job: string, phase: BackupRun['phase'], completionTime?: string): BackupRun => ({
  job,
  phase,
  createdAt: 0,
  startTime: '2024-05-03T03:00:00Z',
  completionTime,
  failureReason: phase === 'Failed' ? 'BackoffLimitExceeded' : undefined,
});

function runsOf(...list: BackupRun[]): BackupRuns {
  const finished = list.filter((r) => r.phase !== 'Running');
  return {
    active: list.filter((r) => r.phase === 'Running').at(-1),
    finished,
    latestFinished: finished.at(-1),
    latestSucceeded: finished.filter((r) => r.phase === 'Succeeded').at(-1),
  };
}

const summary: BackupSummary = {
  snapshotId: '1a2b3c4d',
  volumeSize: '1.5Gi',
  totalBytesProcessed: 1610612736,
  filesNew: 3,
  filesChanged: 1,
  filesUnmodified: 10,
  dataAdded: 2048,
  durationSeconds: 12.5,
};

const base = { schedule: '0 3 * * *', suspended: false, now };

describe('buildBackupStatus', () => {
  it('is Pending with unknown backup success before any run', () => {
    expect(buildBackupStatus({ ...base, runs: runsOf(), previous: undefined })).toEqual({
      phase: 'Pending',
      message: 'Waiting for the first backup (schedule "0 3 * * *")',
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Scheduled',
          message: 'The backup CronJobs are in place',
          lastTransitionTime: NOW,
        },
        {
          type: 'BackupSucceeded',
          status: 'Unknown',
          reason: 'NoBackupYet',
          message: 'No backup has finished yet',
          lastTransitionTime: NOW,
        },
      ],
    });
  });

  it('says so when suspended', () => {
    const status = buildBackupStatus({
      ...base,
      suspended: true,
      runs: runsOf(),
      previous: undefined,
    });
    expect(status.message).toBe('Backups are suspended');
    expect(status.conditions?.[0]).toMatchObject({ status: 'True', reason: 'Suspended' });
  });

  it('is Running while a Job runs', () => {
    const status = buildBackupStatus({
      ...base,
      runs: runsOf(run('db-backup-1', 'Running')),
      previous: undefined,
    });
    expect(status.phase).toBe('Running');
    expect(status.message).toBe('Backup job db-backup-1 is running');
  });

  it('takes the snapshot of a new success from its summary', () => {
    const runs = runsOf(run('db-backup-1', 'Succeeded', '2024-05-03T03:04:10Z'));
    expect(needsSummary(runs, undefined)).toBe(true);
    const status = buildBackupStatus({ ...base, runs, previous: undefined, summary });
    expect(status).toMatchObject({
      phase: 'Succeeded',
      lastBackup: '2024-05-03T03:04:10Z',
      lastSnapshot: '1a2b3c4d',
      volumeSize: '1.5Gi',
      message: 'Backup job db-backup-1 created snapshot 1a2b3c4d (1.5Gi)',
    });
    expect(status.conditions?.[1]).toEqual({
      type: 'BackupSucceeded',
      status: 'True',
      reason: 'SnapshotCreated',
      message: 'Backup job db-backup-1 created snapshot 1a2b3c4d (1.5Gi)',
      lastTransitionTime: NOW,
    });
    // The same runs again: nothing to read, the same status.
    expect(needsSummary(runs, status)).toBe(false);
    expect(
      buildBackupStatus({ ...base, runs, previous: status, now: new Date('2024-05-04T00:00:00Z') }),
    ).toEqual(status);
  });

  it('keeps the last success when a run fails, and describes the failure once', () => {
    const previous: BackupStatusFields = buildBackupStatus({
      ...base,
      runs: runsOf(run('db-backup-1', 'Succeeded', '2024-05-03T03:04:10Z')),
      previous: undefined,
      summary,
      now: new Date(earlier),
    });
    const runs = runsOf(
      run('db-backup-1', 'Succeeded', '2024-05-03T03:04:10Z'),
      run('db-backup-2', 'Failed', '2024-05-04T03:09:00Z'),
    );
    expect(needsFailureDetail(runs, previous)).toBe(true);
    const status = buildBackupStatus({
      ...base,
      runs,
      previous,
      failureDetail: 'Fatal: unable to open repository',
    });
    expect(status).toMatchObject({
      phase: 'Failed',
      lastBackup: '2024-05-03T03:04:10Z',
      lastSnapshot: '1a2b3c4d',
      volumeSize: '1.5Gi',
      message: 'Backup job db-backup-2 failed: Fatal: unable to open repository',
    });
    expect(status.conditions?.[0].lastTransitionTime).toBe(earlier);
    expect(status.conditions?.[1]).toEqual({
      type: 'BackupSucceeded',
      status: 'False',
      reason: 'BackupFailed',
      message: 'Backup job db-backup-2 failed: Fatal: unable to open repository',
      lastTransitionTime: NOW,
    });
    expect(needsFailureDetail(runs, status)).toBe(false);
    expect(buildBackupStatus({ ...base, runs, previous: status })).toEqual(status);
  });

  it('falls back to the Job reason when the pod said nothing', () => {
    const runs = runsOf(run('db-backup-2', 'Failed', '2024-05-04T03:09:00Z'));
    expect(buildBackupStatus({ ...base, runs, previous: undefined }).message).toBe(
      'Backup job db-backup-2 failed: BackoffLimitExceeded',
    );
  });

  it('keeps what it showed when the Jobs are gone', () => {
    const previous = buildBackupStatus({
      ...base,
      runs: runsOf(run('db-backup-1', 'Succeeded', '2024-05-03T03:04:10Z')),
      previous: undefined,
      summary,
    });
    expect(buildBackupStatus({ ...base, runs: runsOf(), previous })).toEqual(previous);
  });
});

describe('buildProblemStatus', () => {
  it('fails the resource and keeps the last backup', () => {
    const previous: BackupStatusFields = {
      phase: 'Succeeded',
      lastBackup: '2024-05-03T03:04:10Z',
      lastSnapshot: '1a2b3c4d',
      volumeSize: '1.5Gi',
      message: 'ok',
    };
    expect(
      buildProblemStatus(
        previous,
        { reason: 'SecretNamespaceMismatch', message: 'wrong namespace' },
        now,
      ),
    ).toEqual({
      phase: 'Failed',
      lastBackup: '2024-05-03T03:04:10Z',
      lastSnapshot: '1a2b3c4d',
      volumeSize: '1.5Gi',
      message: 'wrong namespace',
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'SecretNamespaceMismatch',
          message: 'wrong namespace',
          lastTransitionTime: NOW,
        },
      ],
    });
  });
});
