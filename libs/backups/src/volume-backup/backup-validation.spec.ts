import { describe, expect, it } from '@jest/globals';
import { volumeBackupProblem } from './backup-validation.js';

const valid = {
  schedule: '0 3 * * *',
  repository: { secretRef: { name: 'restic' } },
  check: { enabled: false, schedule: 'never checked' },
  restoreTest: { enabled: false, schedule: 'never checked' },
  kubeconfig: { inCluster: true },
};

describe('volumeBackupProblem', () => {
  it('accepts a secret in the same namespace, named or implied', () => {
    expect(volumeBackupProblem('apps', valid)).toBeUndefined();
    expect(
      volumeBackupProblem('apps', {
        ...valid,
        repository: { secretRef: { name: 'restic', namespace: 'apps' } },
      }),
    ).toBeUndefined();
  });

  it('refuses a repository secret in another namespace', () => {
    expect(
      volumeBackupProblem('apps', {
        ...valid,
        repository: { secretRef: { name: 'restic', namespace: 'vault' } },
      }),
    ).toEqual({
      reason: 'SecretNamespaceMismatch',
      message:
        'repository.secretRef names namespace "vault", but the backup pods run in "apps" and can only read Secrets there',
    });
  });

  it('checks the schedules of enabled CronJobs only', () => {
    expect(volumeBackupProblem('apps', { ...valid, schedule: '0 25 * * *' })).toEqual({
      reason: 'InvalidSchedule',
      message: 'schedule "0 25 * * *" is not a valid cron schedule: hour: 25 is outside 0-23',
    });
    expect(
      volumeBackupProblem('apps', { ...valid, check: { enabled: true, schedule: 'daily' } }),
    ).toEqual({
      reason: 'InvalidSchedule',
      message:
        'check.schedule "daily" is not a valid cron schedule: expected 5 fields (minute hour day-of-month month day-of-week), got 1',
    });
    expect(
      volumeBackupProblem('apps', {
        ...valid,
        restoreTest: { enabled: true, schedule: '@weekly' },
      }),
    ).toBeUndefined();
  });

  it('needs a kubeconfig secret outside the cluster', () => {
    expect(volumeBackupProblem('apps', { ...valid, kubeconfig: { inCluster: false } })).toEqual({
      reason: 'KubeconfigUnavailable',
      message: 'kubeconfig.secretRef.name is required when kubeconfig.inCluster is false',
    });
  });
});
