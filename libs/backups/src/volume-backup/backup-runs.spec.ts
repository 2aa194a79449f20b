import { describe, expect, it } from '@jest/globals';
import {
  backupRun,
  type JobObject,
  kubeTime,
  summarizeRuns,
  unreportedRuns,
} from './backup-runs.js';

function job(name: string, created: string, status: JobObject['status'] = {}): JobObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'apps', creationTimestamp: new Date(created) },
    status,
  };
}

const succeeded = (name: string, created: string, completed: string) =>
  job(name, created, {
    startTime: created,
    completionTime: completed,
    conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: completed }],
  });
const failed = (name: string, created: string, at: string) =>
  job(name, created, {
    startTime: created,
    conditions: [
      {
        type: 'Failed',
        status: 'True',
        reason: 'BackoffLimitExceeded',
        message: 'Job has reached the specified backoff limit',
        lastTransitionTime: at,
      },
    ],
  });

describe('kubeTime', () => {
  it('writes whole seconds in UTC whatever it is given', () => {
    expect(kubeTime('2024-05-01T03:00:07Z')).toBe('2024-05-01T03:00:07Z');
    expect(kubeTime(new Date('2024-05-01T03:00:07.912Z'))).toBe('2024-05-01T03:00:07Z');
    expect(kubeTime(undefined)).toBeUndefined();
    expect(kubeTime('not a time')).toBeUndefined();
  });
});

describe('backupRun', () => {
  it('reads a completed Job', () => {
    expect(
      backupRun(succeeded('db-backup-1', '2024-05-01T03:00:00Z', '2024-05-01T03:04:10Z')),
    ).toEqual({
      job: 'db-backup-1',
      phase: 'Succeeded',
      createdAt: Date.parse('2024-05-01T03:00:00Z'),
      startTime: '2024-05-01T03:00:00Z',
      completionTime: '2024-05-01T03:04:10Z',
    });
  });

  it('reads a failed Job with the time and reason of its Failed condition', () => {
    expect(
      backupRun(failed('db-backup-2', '2024-05-02T03:00:00Z', '2024-05-02T03:09:00Z')),
    ).toEqual({
      job: 'db-backup-2',
      phase: 'Failed',
      createdAt: Date.parse('2024-05-02T03:00:00Z'),
      startTime: '2024-05-02T03:00:00Z',
      completionTime: '2024-05-02T03:09:00Z',
      failureReason: 'BackoffLimitExceeded: Job has reached the specified backoff limit',
    });
  });

  it('counts a Job without a final condition as running, pods or not', () => {
    expect(backupRun(job('db-backup-3', '2024-05-03T03:00:00Z')).phase).toBe('Running');
    expect(backupRun(job('db-backup-3', '2024-05-03T03:00:00Z', { active: 1 })).phase).toBe(
      'Running',
    );
  });
});

describe('summarizeRuns and unreportedRuns', () => {
  const jobs = [
    failed('db-backup-2', '2024-05-02T03:00:00Z', '2024-05-02T03:09:00Z'),
    succeeded('db-backup-3', '2024-05-03T03:00:00Z', '2024-05-03T03:05:00Z'),
    succeeded('db-backup-1', '2024-05-01T03:00:00Z', '2024-05-01T03:04:10Z'),
    job('db-backup-4', '2024-05-04T03:00:00Z', { active: 1 }),
  ];

  it('orders runs by creation and picks the active, newest finished and newest successful', () => {
    const runs = summarizeRuns(jobs);
    expect(runs.active?.job).toBe('db-backup-4');
    expect(runs.finished.map((r) => r.job)).toEqual(['db-backup-1', 'db-backup-2', 'db-backup-3']);
    expect(runs.latestFinished?.job).toBe('db-backup-3');
    expect(runs.latestSucceeded?.job).toBe('db-backup-3');
  });

  it('reports every run after the last reported one, in order', () => {
    const runs = summarizeRuns(jobs);
    expect(unreportedRuns(runs, 'db-backup-1').map((r) => r.job)).toEqual([
      'db-backup-2',
      'db-backup-3',
    ]);
    expect(unreportedRuns(runs, 'db-backup-3')).toEqual([]);
  });

  it('reports only the newest when the last reported Job is gone or none was reported', () => {
    const runs = summarizeRuns(jobs);
    expect(unreportedRuns(runs, 'db-backup-0').map((r) => r.job)).toEqual(['db-backup-3']);
    expect(unreportedRuns(runs, undefined).map((r) => r.job)).toEqual(['db-backup-3']);
    expect(unreportedRuns(summarizeRuns([]), undefined)).toEqual([]);
  });
});
