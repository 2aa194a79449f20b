import { volumeBackupChildNames } from '../render/volume-backup.js';
import type { BackupProblem } from './backup-status.js';
import { cronScheduleProblem } from './cron-schedule.js';

/**
 * Kubernetes refuses CronJob names over 52 characters: the Jobs it creates append 11 (a dash
 * and the scheduled minute).
 */
export const CRONJOB_NAME_MAX = 52;

/** The parts of a defaulted VolumeBackup spec the schema cannot check by itself. */
export interface ValidatedSpec {
  schedule: string;
  repository: { secretRef: { name: string; namespace?: string } };
  check?: { enabled?: boolean; schedule?: string };
  restoreTest?: { enabled?: boolean; schedule?: string };
  kubeconfig?: { inCluster?: boolean; secretRef?: { name?: string } };
}

/**
 * What makes a VolumeBackup impossible to carry out as written, checked before anything is
 * created. A pod can only read Secrets of its own namespace, so a repository secret elsewhere
 * can never work. The CronJobs take their names from the VolumeBackup's, so a long name
 * leaves no room for their suffixes: a name may have 45 characters, 39 with restoreTest
 * enabled.
 */
export function volumeBackupProblem(
  { namespace, name }: { namespace: string; name: string },
  spec: ValidatedSpec,
  kind = 'VolumeBackup',
): BackupProblem | undefined {
  const names = volumeBackupChildNames(name);
  const cronJobs = [names.backupCronJob];
  if (spec.check?.enabled) cronJobs.push(names.checkCronJob);
  if (spec.restoreTest?.enabled) cronJobs.push(names.restoreTestCronJob);
  const longest = cronJobs.reduce((a, b) => (b.length > a.length ? b : a));
  if (longest.length > CRONJOB_NAME_MAX) {
    return {
      reason: 'NameTooLong',
      message: `the name "${name}" is too long: its CronJob "${longest}" would have ${longest.length} characters, and Kubernetes allows ${CRONJOB_NAME_MAX}; rename the ${kind} to at most ${name.length - (longest.length - CRONJOB_NAME_MAX)} characters`,
    };
  }
  const secretRef = spec.repository.secretRef;
  if (secretRef.namespace && secretRef.namespace !== namespace) {
    return {
      reason: 'SecretNamespaceMismatch',
      message: `repository.secretRef names namespace "${secretRef.namespace}", but the backup pods run in "${namespace}" and can only read Secrets there`,
    };
  }
  const schedules: Array<[string, string | undefined]> = [['schedule', spec.schedule]];
  if (spec.check?.enabled) schedules.push(['check.schedule', spec.check.schedule]);
  if (spec.restoreTest?.enabled)
    schedules.push(['restoreTest.schedule', spec.restoreTest.schedule]);
  for (const [field, schedule] of schedules) {
    const problem = cronScheduleProblem(schedule ?? '');
    if (problem) {
      return {
        reason: 'InvalidSchedule',
        message: `${field} "${schedule}" is not a valid cron schedule: ${problem}`,
      };
    }
  }
  if (spec.kubeconfig?.inCluster === false && !spec.kubeconfig.secretRef?.name) {
    return {
      reason: 'KubeconfigUnavailable',
      message: 'kubeconfig.secretRef.name is required when kubeconfig.inCluster is false',
    };
  }
  return undefined;
}
