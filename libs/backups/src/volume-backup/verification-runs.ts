import { type Condition, type KubeClient } from '@platform/kube';
import type { VerificationStatus } from '../api/types.js';
import { BackupLabels } from '../render/volume-backup.js';
import { type BackupRun, type BackupRuns, type JobObject, summarizeRuns } from './backup-runs.js';
import { failureExcerpt, resticTerminationMessage } from './job-termination.js';

export type VerificationType = 'check' | 'restore-test';

/** The runs of one job type among a VolumeBackup's Jobs. */
export function runsOfType(jobs: readonly JobObject[], type: string): BackupRuns {
  return summarizeRuns(jobs.filter((job) => job.metadata.labels?.[BackupLabels.jobType] === type));
}

const LABEL: Record<VerificationType, string> = {
  check: 'Check job',
  'restore-test': 'Restore test job',
};

/**
 * The newest finished check or restore test as status shows it. The pod is read only when that
 * run is news (another Job than the status names); otherwise the previous result stands.
 */
export async function verificationResult(
  type: VerificationType,
  runs: BackupRuns,
  previous: VerificationStatus | undefined,
  client: KubeClient,
  namespace: string,
): Promise<{ result?: VerificationStatus; fresh: boolean }> {
  const run = runs.latestFinished;
  if (!run || run.job === previous?.job) return { result: previous, fresh: false };
  const succeeded = run.phase === 'Succeeded';
  const message = await resticTerminationMessage(client, namespace, run.job, succeeded);
  return { result: describeRun(type, run, succeeded, message), fresh: true };
}

function describeRun(
  type: VerificationType,
  run: BackupRun,
  succeeded: boolean,
  termination: string | undefined,
): VerificationStatus {
  const base = {
    job: run.job,
    result: succeeded ? ('Passed' as const) : ('Failed' as const),
    lastRun: run.completionTime ?? run.startTime ?? '',
  };
  const prefix = `${LABEL[type]} ${run.job}`;
  if (!succeeded) {
    const detail = failureExcerpt(termination) ?? run.failureReason ?? 'the Job failed';
    return { ...base, message: `${prefix} failed: ${detail}` };
  }
  const report = parseJson(termination);
  if (type === 'check') {
    const errors = numberOr(report?.num_errors, 0);
    return { ...base, errors, message: `${prefix} passed: the repository has no errors` };
  }
  if (!report) return { ...base, message: `${prefix} passed; its report could not be read` };
  const counts = {
    snapshotId: typeof report.snapshot_id === 'string' ? report.snapshot_id : undefined,
    filesChecked: numberOr(report.files_checked, 0),
    filesVerified: numberOr(report.files_verified, 0),
    filesChanged: numberOr(report.files_changed, 0),
    mismatches: numberOr(report.mismatches, 0),
  };
  const message = counts.snapshotId
    ? `${prefix} passed: ${counts.filesChecked} files restored from snapshot ${counts.snapshotId}, ${counts.filesVerified} verified, ${counts.filesChanged} changed since the snapshot`
    : `${prefix} passed: no snapshot to test yet`;
  return { ...base, ...(counts.snapshotId ? counts : {}), message };
}

/** The CheckPassed or RestoreTestPassed condition a result shows. */
export function verificationCondition(
  type: VerificationType,
  result: VerificationStatus,
): Omit<Condition, 'lastTransitionTime'> {
  const name = type === 'check' ? 'Check' : 'RestoreTest';
  const passed = result.result === 'Passed';
  return {
    type: `${name}Passed`,
    status: passed ? 'True' : 'False',
    reason: passed ? `${name}Passed` : `${name}Failed`,
    message: result.message,
  };
}

function parseJson(text: string | undefined): Record<string, unknown> | undefined {
  const line = text?.split('\n').findLast((l) => l.trim().startsWith('{'));
  if (!line) return undefined;
  try {
    const parsed: unknown = JSON.parse(line);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
