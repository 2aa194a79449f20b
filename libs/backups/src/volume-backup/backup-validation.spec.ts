import { describe, expect, it } from '@jest/globals';
import { volumeBackupProblem } from './backup-validation.js';

const valid = {
  schedule: '0 3 * * *',
  repository: { secretRef: { name: 'restic' } },
  check: { enabled: false, schedule: 'never checked' },
  restoreTest: { enabled: false, schedule: 'never checked' },
  kubeconfig: { inCluster: true },
};

const shopData = { namespace: 'apps', name: 'shop-data' };

describe('volumeBackupProblem', () => {
  it('refuses a name that leaves an enabled CronJob over 52 characters, naming the limit', () => {
    const named = (length: number) => ({ namespace: 'apps', name: 'v'.repeat(length) });
    const withRestoreTest = { ...valid, restoreTest: { enabled: true, schedule: '0 5 * * *' } };
    const withCheck = { ...valid, check: { enabled: true, schedule: '0 4 * * 0' } };
    // -backup adds 7, -check 6, -restore-test 13.
    expect(volumeBackupProblem(named(45), valid)).toBeUndefined();
    expect(volumeBackupProblem(named(46), valid)).toEqual({
      reason: 'NameTooLong',
      message: `the name "${'v'.repeat(46)}" is too long: its CronJob "${'v'.repeat(46)}-backup" would have 53 characters, and Kubernetes allows 52; rename the VolumeBackup to at most 45 characters`,
    });
    expect(volumeBackupProblem(named(45), withCheck)).toBeUndefined();
    expect(volumeBackupProblem(named(39), withRestoreTest)).toBeUndefined();
    expect(volumeBackupProblem(named(40), withRestoreTest)).toEqual({
      reason: 'NameTooLong',
      message: `the name "${'v'.repeat(40)}" is too long: its CronJob "${'v'.repeat(40)}-restore-test" would have 53 characters, and Kubernetes allows 52; rename the VolumeBackup to at most 39 characters`,
    });
  });

  it('accepts a secret in the same namespace, named or implied', () => {
    expect(volumeBackupProblem(shopData, valid)).toBeUndefined();
    expect(
      volumeBackupProblem(shopData, {
        ...valid,
        repository: { secretRef: { name: 'restic', namespace: 'apps' } },
      }),
    ).toBeUndefined();
  });

  it('refuses a repository secret in another namespace', () => {
    expect(
      volumeBackupProblem(shopData, {
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
    expect(volumeBackupProblem(shopData, { ...valid, schedule: '0 25 * * *' })).toEqual({
      reason: 'InvalidSchedule',
      message: 'schedule "0 25 * * *" is not a valid cron schedule: hour: 25 is outside 0-23',
    });
    expect(
      volumeBackupProblem(shopData, { ...valid, check: { enabled: true, schedule: 'daily' } }),
    ).toEqual({
      reason: 'InvalidSchedule',
      message:
        'check.schedule "daily" is not a valid cron schedule: expected 5 fields (minute hour day-of-month month day-of-week), got 1',
    });
    expect(
      volumeBackupProblem(shopData, {
        ...valid,
        restoreTest: { enabled: true, schedule: '@weekly' },
      }),
    ).toBeUndefined();
  });

  it('needs a kubeconfig secret outside the cluster', () => {
    expect(volumeBackupProblem(shopData, { ...valid, kubeconfig: { inCluster: false } })).toEqual({
      reason: 'KubeconfigUnavailable',
      message: 'kubeconfig.secretRef.name is required when kubeconfig.inCluster is false',
    });
  });
});
