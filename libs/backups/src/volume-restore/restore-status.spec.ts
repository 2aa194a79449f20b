import { describe, expect, it } from '@jest/globals';
import { type AttemptRecord, planRestore } from './restore-attempts.js';
import { buildRestoreStatus, problemStatus } from './restore-status.js';

const NOW = new Date('2024-05-03T06:10:00Z');
const targetInfo = { pvcName: 'db-restored', pvcNamespace: 'shop', size: '1Gi', created: true };
const sourceInfo = {
  repository: 's3:https://s3.example.com/bucket',
  host: 'shop-data',
  paths: ['/'],
};

function statusFor(history: AttemptRecord[], extra: { progress?: object } = {}) {
  return buildRestoreStatus({
    plan: planRestore(history, 2, NOW),
    history,
    totalAttempts: 2,
    sourceInfo,
    targetInfo,
    now: NOW,
    ...extra,
  });
}

describe('buildRestoreStatus', () => {
  it('reports a running attempt without completion', () => {
    const status = statusFor([
      { jobName: 'db-restore-1', attempt: 1, phase: 'Running', startTime: '2024-05-03T06:01:00Z' },
    ]);
    expect(status).toEqual({
      phase: 'Running',
      startTime: '2024-05-03T06:01:00Z',
      message: 'restoring into claim db-restored (attempt 1 of 2)',
      sourceInfo,
      targetInfo,
      jobInfo: {
        currentJob: 'db-restore-1',
        attempt: 1,
        totalAttempts: 2,
        jobHistory: [
          {
            jobName: 'db-restore-1',
            attempt: 1,
            phase: 'Running',
            startTime: '2024-05-03T06:01:00Z',
          },
        ],
      },
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'Restoring',
          message: 'restoring into claim db-restored (attempt 1 of 2)',
          lastTransitionTime: '2024-05-03T06:10:00Z',
        },
      ],
    });
  });

  it('names the failure and when the next attempt starts while retrying', () => {
    const status = statusFor([
      {
        jobName: 'db-restore-1',
        attempt: 1,
        phase: 'Failed',
        startTime: '2024-05-03T06:01:00Z',
        completionTime: '2024-05-03T06:09:55Z',
        message: 'BackoffLimitExceeded: Job has reached the specified backoff limit',
      },
    ]);
    expect(status.phase).toBe('Retrying');
    expect(status.completionTime).toBeUndefined();
    expect(status.message).toBe(
      'attempt 1 of 2 failed: BackoffLimitExceeded: Job has reached the specified backoff limit; ' +
        'attempt 2 starts at 2024-05-03T06:10:05Z',
    );
  });

  it('reports the outcome with the start of the first attempt and the duration', () => {
    const status = statusFor(
      [
        {
          jobName: 'db-restore-1',
          attempt: 1,
          phase: 'Failed',
          startTime: '2024-05-03T06:01:00Z',
          completionTime: '2024-05-03T06:02:00Z',
          message: 'DeadlineExceeded',
        },
        {
          jobName: 'db-restore-2',
          attempt: 2,
          phase: 'Succeeded',
          startTime: '2024-05-03T06:02:30Z',
          completionTime: '2024-05-03T06:04:15Z',
        },
      ],
      {
        progress: {
          filesTotal: 3,
          filesRestored: 3,
          bytesTotal: 30,
          bytesRestored: 30,
          percentComplete: 100,
        },
      },
    );
    expect(status).toMatchObject({
      phase: 'Succeeded',
      startTime: '2024-05-03T06:01:00Z',
      completionTime: '2024-05-03T06:04:15Z',
      duration: '3m15s',
      message: 'restored the snapshot into claim db-restored: 3 files, 30 bytes',
      conditions: [{ type: 'Ready', status: 'True', reason: 'Restored' }],
    });
  });

  it('fails once every attempt failed', () => {
    const failed = (attempt: number): AttemptRecord => ({
      jobName: `db-restore-${attempt}`,
      attempt,
      phase: 'Failed',
      startTime: '2024-05-03T06:01:00Z',
      completionTime: '2024-05-03T06:02:00Z',
      message: 'DeadlineExceeded',
    });
    expect(statusFor([failed(1), failed(2)])).toMatchObject({
      phase: 'Failed',
      completionTime: '2024-05-03T06:02:00Z',
      duration: '1m0s',
      message: 'all 2 attempts failed; the last: DeadlineExceeded',
      conditions: [{ type: 'Ready', status: 'False', reason: 'RetriesExhausted' }],
    });
  });
});

describe('problemStatus', () => {
  it('fails for good on a problem that cannot resolve itself', () => {
    expect(
      problemStatus(
        undefined,
        { reason: 'InvalidSource', message: 'give sourceBackup or sourceRepository' },
        NOW,
      ),
    ).toEqual({
      phase: 'Failed',
      completionTime: '2024-05-03T06:10:00Z',
      message: 'give sourceBackup or sourceRepository',
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'InvalidSource',
          message: 'give sourceBackup or sourceRepository',
          lastTransitionTime: '2024-05-03T06:10:00Z',
        },
      ],
    });
  });

  it('stays Pending on a problem that may resolve itself', () => {
    const status = problemStatus(
      undefined,
      {
        reason: 'TargetClaimNotFound',
        message: 'claim shop/data does not exist',
        retryAfterMs: 15_000,
      },
      NOW,
    );
    expect(status).toMatchObject({ phase: 'Pending', message: 'claim shop/data does not exist' });
    expect(status.completionTime).toBeUndefined();
  });
});
