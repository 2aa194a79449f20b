import type { DefaultedVolumeRestoreSpec } from '../api/defaults.js';
import type { VolumeRestore } from '../api/types.js';
import {
  type Job,
  renderRestoreJob,
  type RestoreSource,
  restoreTargetPvcName,
} from '../render/volume-restore.js';
import { attemptOfJob } from './restore-attempts.js';
import type { JobObject } from './restore-cluster.js';

/**
 * The spec a restore started with, its source resolved, on every Job it creates: retries run
 * exactly what the first attempt ran, whatever the VolumeRestore or its VolumeBackup say later.
 */
export const RESTORE_SPEC_ANNOTATION = 'backups.k8s.neutral.com/restore-spec';

export interface StartedWith {
  spec: DefaultedVolumeRestoreSpec;
  source: RestoreSource;
}

/** The Job of one attempt, carrying the spec the restore started with. */
export function renderAttemptJob(
  restore: VolumeRestore,
  startedWith: StartedWith,
  attempt: number,
  ownerReferences: boolean,
  pvcName: string | undefined,
): Job {
  const frozen = { ...restore, spec: startedWith.spec };
  const job = renderRestoreJob(frozen, {
    ownerReferences,
    attempt,
    pvcName: pvcName ?? restoreTargetPvcName(frozen),
    source: startedWith.source,
  });
  job.metadata.annotations = {
    ...job.metadata.annotations,
    [RESTORE_SPEC_ANNOTATION]: JSON.stringify(startedWith),
  };
  return job;
}

/** The started spec, from the newest Job of the restore that carries it. */
export function startedWithOf(restoreName: string, jobs: JobObject[]): StartedWith | undefined {
  const attempt = (job: JobObject) => attemptOfJob(restoreName, job.metadata.name) ?? 0;
  const newestFirst = [...jobs].sort((a, b) => attempt(b) - attempt(a));
  for (const job of newestFirst) {
    const text = job.metadata.annotations?.[RESTORE_SPEC_ANNOTATION];
    if (!text) continue;
    try {
      const parsed = JSON.parse(text) as StartedWith;
      if (parsed?.spec && parsed.source?.repository) return parsed;
    } catch {
      // Not ours to trust: look at an older Job, or fall back to the spec.
    }
  }
  return undefined;
}
