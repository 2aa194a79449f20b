import { describe, expect, it } from '@jest/globals';
import type { BackupRuns } from '../volume-backup/backup-runs.js';
import { buildS3BackupStatus, buildS3ProblemStatus } from './s3-backup-status.js';

const NOW = new Date('2024-05-03T06:00:00Z');
const succeeded = {
  job: 'media-backup-2',
  phase: 'Succeeded' as const,
  createdAt: 2,
  completionTime: '2024-05-03T03:04:10Z',
};
const runs: BackupRuns = {
  finished: [succeeded],
  latestFinished: succeeded,
  latestSucceeded: succeeded,
};
const summary = {
  snapshotId: 'ab12cd34ef56',
  volumeSize: '3Mi',
  totalBytesProcessed: 3_145_728,
  filesNew: 2,
  filesChanged: 1,
  filesUnmodified: 7,
  dataAdded: 1024,
  durationSeconds: 4,
};
const inputs = { schedule: '0 3 * * *', suspended: false, runs, now: NOW };

describe('buildS3BackupStatus', () => {
  it('a new success: size, objects (every file restic read) and bytes from its summary', () => {
    const status = buildS3BackupStatus({ ...inputs, previous: undefined, summary });
    expect(status).toMatchObject({
      phase: 'Succeeded',
      lastBackup: '2024-05-03T03:04:10Z',
      lastSnapshot: 'ab12cd34ef56',
      size: '3Mi',
      objectCount: 10,
      bytes: 3_145_728,
    });
    expect(status).not.toHaveProperty('volumeSize');
  });

  it('an already reported success keeps what the status shows without reading the pod again', () => {
    const previous = buildS3BackupStatus({ ...inputs, previous: undefined, summary });
    expect(buildS3BackupStatus({ ...inputs, previous })).toEqual(previous);
  });

  it('a problem keeps the last success, its size and counts', () => {
    const previous = buildS3BackupStatus({ ...inputs, previous: undefined, summary });
    const problem = { reason: 'InvalidSchedule', message: 'schedule "x" is not valid' };
    expect(buildS3ProblemStatus(previous, problem, NOW)).toEqual({
      phase: 'Failed',
      lastBackup: '2024-05-03T03:04:10Z',
      lastSnapshot: 'ab12cd34ef56',
      size: '3Mi',
      objectCount: 10,
      bytes: 3_145_728,
      message: 'schedule "x" is not valid',
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'InvalidSchedule',
          message: 'schedule "x" is not valid',
          lastTransitionTime: '2024-05-03T06:00:00Z',
        },
        expect.objectContaining({ type: 'BackupSucceeded', status: 'True' }),
      ],
    });
  });
});
