import type { DefaultedS3BackupSpec } from '../api/s3-backup-defaults.js';
import type { BackupProblem } from '../volume-backup/backup-status.js';
import { volumeBackupProblem } from '../volume-backup/backup-validation.js';

/**
 * What makes an S3Backup impossible to carry out as written, checked before anything is
 * created: the same as for a VolumeBackup's backup CronJob (its name, the repository Secret's
 * namespace, the schedule), and the credentials Secret, which the pod must read from its own
 * namespace too.
 */
export function s3BackupProblem(
  backup: { namespace: string; name: string },
  spec: Pick<DefaultedS3BackupSpec, 'schedule' | 'repository' | 'source'>,
): BackupProblem | undefined {
  const problem = volumeBackupProblem(
    backup,
    { schedule: spec.schedule, repository: spec.repository },
    'S3Backup',
  );
  if (problem) return problem;
  const credentials = spec.source.credentialsSecretRef;
  if (credentials?.namespace && credentials.namespace !== backup.namespace) {
    return {
      reason: 'SecretNamespaceMismatch',
      message: `source.credentialsSecretRef names namespace "${credentials.namespace}", but the backup pods run in "${backup.namespace}" and can only read Secrets there`,
    };
  }
  return undefined;
}
