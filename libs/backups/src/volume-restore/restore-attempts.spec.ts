import { describe, expect, it } from '@jest/globals';
import {
  restoreNameProblem,
  type AttemptRecord,
  attemptOfJob,
  jobsToPrune,
  mergeHistory,
  type ObservedJob,
  observeJob,
  planRestore,
  retryDelayMs,
} from './restore-attempts.js';

const NOW = new Date('2024-05-03T06:10:00Z');

function job(name: string, status: ObservedJob['status'] = {}): ObservedJob {
  return { metadata: { name, creationTimestamp: '2024-05-03T06:00:00Z' }, status };
}

const entry = (
  attempt: number,
  phase: AttemptRecord['phase'],
  extra: Partial<AttemptRecord> = {},
) => ({
  jobName: `db-restore-${attempt}`,
  attempt,
  phase,
  ...extra,
});

describe('restoreNameProblem', () => {
  it('fits the Job of the last attempt into 63 characters', () => {
    // -restore-4 adds 10 with the default 3 retries, -restore-11 adds 11 with 10.
    expect(restoreNameProblem('r'.repeat(53), 3)).toBeUndefined();
    expect(restoreNameProblem('r'.repeat(52), 10)).toBeUndefined();
    expect(restoreNameProblem('r'.repeat(53), 10)).toEqual({
      reason: 'NameTooLong',
      message: `the name "${'r'.repeat(53)}" is too long: the Job of its last attempt, "${'r'.repeat(53)}-restore-11", would have 64 characters, and Kubernetes allows 63; rename the VolumeRestore to at most 52 characters`,
    });
    expect(restoreNameProblem('r'.repeat(54), 3)?.reason).toBe('NameTooLong');
  });
});

describe('attemptOfJob', () => {
  it('reads the attempt from <name>-restore-<n>', () => {
    expect(attemptOfJob('db', 'db-restore-1')).toBe(1);
    expect(attemptOfJob('db', 'db-restore-11')).toBe(11);
  });

  it('ignores names that are not a restore attempt of this restore', () => {
    expect(attemptOfJob('db', 'db-restore-0')).toBeUndefined();
    expect(attemptOfJob('db', 'db-restore-x')).toBeUndefined();
    expect(attemptOfJob('db', 'db-old-restore-1')).toBeUndefined();
    expect(attemptOfJob('db', 'dbx-restore-1')).toBeUndefined();
    expect(attemptOfJob('db', undefined)).toBeUndefined();
  });
});

describe('observeJob', () => {
  it('is Pending until the Job has an active pod', () => {
    expect(observeJob(job('db-restore-1'), 1, NOW)).toEqual({
      jobName: 'db-restore-1',
      attempt: 1,
      phase: 'Pending',
      startTime: undefined,
    });
  });

  it('is Running while a pod is active', () => {
    expect(
      observeJob(job('db-restore-1', { active: 1, startTime: '2024-05-03T06:01:00Z' }), 1, NOW),
    ).toEqual({
      jobName: 'db-restore-1',
      attempt: 1,
      phase: 'Running',
      startTime: '2024-05-03T06:01:00Z',
    });
  });

  it('stays Running through failed pods until the Job gives up', () => {
    const record = observeJob(
      job('db-restore-1', { active: 1, failed: 3, startTime: '2024-05-03T06:01:00Z' }),
      1,
      NOW,
    );
    expect(record.phase).toBe('Running');
  });

  it('is Failed with the condition as message once the backoff limit is exhausted', () => {
    const failed = job('db-restore-2', {
      failed: 7,
      startTime: '2024-05-03T06:01:00Z',
      conditions: [
        {
          type: 'Failed',
          status: 'True',
          reason: 'BackoffLimitExceeded',
          message: 'Job has reached the specified backoff limit',
          lastTransitionTime: '2024-05-03T06:05:00Z',
        },
      ],
    });
    expect(observeJob(failed, 2, NOW)).toEqual({
      jobName: 'db-restore-2',
      attempt: 2,
      phase: 'Failed',
      startTime: '2024-05-03T06:01:00Z',
      completionTime: '2024-05-03T06:05:00Z',
      message: 'BackoffLimitExceeded: Job has reached the specified backoff limit',
    });
  });

  it('is Failed when the deadline passed, and takes now when the condition has no time', () => {
    const failed = job('db-restore-1', {
      conditions: [{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded' }],
    });
    const record = observeJob(failed, 1, NOW);
    expect(record).toMatchObject({
      phase: 'Failed',
      message: 'DeadlineExceeded',
      completionTime: '2024-05-03T06:10:00Z',
    });
    // A finished Job that never reported a start counts from its creation.
    expect(record.startTime).toBe('2024-05-03T06:00:00Z');
  });

  it('is Succeeded with the Job completion time', () => {
    const done = job('db-restore-1', {
      succeeded: 1,
      startTime: '2024-05-03T06:01:00Z',
      completionTime: '2024-05-03T06:02:30Z',
      conditions: [{ type: 'Complete', status: 'True' }],
    });
    expect(observeJob(done, 1, NOW)).toEqual({
      jobName: 'db-restore-1',
      attempt: 1,
      phase: 'Succeeded',
      startTime: '2024-05-03T06:01:00Z',
      completionTime: '2024-05-03T06:02:30Z',
    });
  });

  it('ignores conditions that are not True', () => {
    const record = observeJob(
      job('db-restore-1', { active: 1, conditions: [{ type: 'Failed', status: 'False' }] }),
      1,
      NOW,
    );
    expect(record.phase).toBe('Running');
  });
});

describe('mergeHistory', () => {
  it('keeps entries of deleted Jobs and adds live ones, ordered by attempt', () => {
    const merged = mergeHistory([entry(1, 'Failed', { message: 'gone' })], [entry(2, 'Running')]);
    expect(merged).toEqual([entry(1, 'Failed', { message: 'gone' }), entry(2, 'Running')]);
  });

  it('never changes a finished attempt it recorded', () => {
    const recorded = entry(1, 'Failed', {
      message: 'BackoffLimitExceeded; restic: Fatal: wrong password',
    });
    expect(
      mergeHistory([recorded], [entry(1, 'Failed', { message: 'BackoffLimitExceeded' })]),
    ).toEqual([recorded]);
  });

  it('updates an unfinished attempt and keeps its recorded start time', () => {
    const merged = mergeHistory(
      [entry(1, 'Running', { startTime: '2024-05-03T06:01:00Z' })],
      [entry(1, 'Succeeded', { completionTime: '2024-05-03T06:02:00Z' })],
    );
    expect(merged).toEqual([
      entry(1, 'Succeeded', {
        startTime: '2024-05-03T06:01:00Z',
        completionTime: '2024-05-03T06:02:00Z',
      }),
    ]);
  });
});

describe('retryDelayMs', () => {
  it('doubles from 10 s per failed attempt, capped at 5 minutes', () => {
    expect([1, 2, 3, 4, 5, 6, 10].map(retryDelayMs)).toEqual([
      10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000,
    ]);
  });
});

describe('planRestore', () => {
  it('starts attempt 1 at once when nothing ran yet', () => {
    expect(planRestore([], 4, NOW)).toEqual({ phase: 'Pending', next: { attempt: 1, dueAt: NOW } });
  });

  it('is Pending while the first Job has not started, Running while it runs', () => {
    expect(planRestore([entry(1, 'Pending')], 4, NOW)).toEqual({
      phase: 'Pending',
      current: entry(1, 'Pending'),
    });
    expect(planRestore([entry(1, 'Running')], 4, NOW).phase).toBe('Running');
  });

  it('retries a failed attempt after the backoff delay while attempts remain', () => {
    const failed = entry(2, 'Failed', { completionTime: '2024-05-03T06:09:50Z' });
    expect(planRestore([entry(1, 'Failed'), failed], 4, NOW)).toEqual({
      phase: 'Retrying',
      current: failed,
      next: { attempt: 3, dueAt: new Date('2024-05-03T06:10:10Z') },
    });
  });

  it('is Retrying while the retry Job has not started yet', () => {
    expect(planRestore([entry(1, 'Failed'), entry(2, 'Pending')], 4, NOW).phase).toBe('Retrying');
  });

  it('fails once the last attempt failed', () => {
    const last = entry(4, 'Failed', { completionTime: '2024-05-03T06:09:00Z' });
    expect(
      planRestore([entry(1, 'Failed'), entry(2, 'Failed'), entry(3, 'Failed'), last], 4, NOW),
    ).toEqual({
      phase: 'Failed',
      current: last,
      completionTime: '2024-05-03T06:09:00Z',
    });
    expect(planRestore([entry(1, 'Failed')], 1, NOW).phase).toBe('Failed');
  });

  it('succeeds with the succeeded attempt', () => {
    const done = entry(2, 'Succeeded', { completionTime: '2024-05-03T06:09:00Z' });
    expect(planRestore([entry(1, 'Failed'), done], 4, NOW)).toEqual({
      phase: 'Succeeded',
      current: done,
      completionTime: '2024-05-03T06:09:00Z',
    });
  });
});

describe('jobsToPrune', () => {
  const history = [
    entry(1, 'Failed'),
    entry(2, 'Failed'),
    entry(3, 'Failed'),
    entry(4, 'Succeeded'),
  ];
  const live = new Set(history.map((h) => h.jobName));

  it('keeps the newest finished Jobs within the limits', () => {
    expect(jobsToPrune(history, live, 3, 2)).toEqual(['db-restore-1']);
    expect(jobsToPrune(history, live, 0, 0)).toEqual([
      'db-restore-4',
      'db-restore-3',
      'db-restore-2',
      'db-restore-1',
    ]);
    expect(jobsToPrune(history, live, 3, 3)).toEqual([]);
  });

  it('never picks unfinished or already deleted Jobs', () => {
    const withRunning = [entry(1, 'Failed'), entry(2, 'Running')];
    expect(jobsToPrune(withRunning, new Set(['db-restore-2']), 0, 0)).toEqual([]);
  });
});
