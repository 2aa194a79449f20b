import { describe, expect, it } from '@jest/globals';
import { s3BackupProblem } from './s3-backup-validation.js';

const valid = {
  schedule: '0 3 * * *',
  repository: { type: 's3' as const, url: 's3:https://s3.example/r', secretRef: { name: 'r' } },
  source: {
    bucket: 'media',
    endpoint: 'https://s3.example',
    forcePathStyle: true,
    credentialsSecretRef: { name: 'reader' },
  },
};
const media = { namespace: 'shop', name: 'media' };

describe('s3BackupProblem', () => {
  it('accepts a valid spec, and a credentials Secret named with its own namespace', () => {
    expect(s3BackupProblem(media, valid)).toBeUndefined();
    const sameNamespace = {
      ...valid,
      source: { ...valid.source, credentialsSecretRef: { name: 'reader', namespace: 'shop' } },
    };
    expect(s3BackupProblem(media, sameNamespace)).toBeUndefined();
  });

  it('refuses a credentials Secret of another namespace', () => {
    const elsewhere = {
      ...valid,
      source: { ...valid.source, credentialsSecretRef: { name: 'reader', namespace: 'vault' } },
    };
    expect(s3BackupProblem(media, elsewhere)).toEqual({
      reason: 'SecretNamespaceMismatch',
      message:
        'source.credentialsSecretRef names namespace "vault", but the backup pods run in "shop" and can only read Secrets there',
    });
  });

  it('checks what a VolumeBackup checks, naming the S3Backup', () => {
    expect(s3BackupProblem({ namespace: 'shop', name: 'm'.repeat(46) }, valid)).toMatchObject({
      reason: 'NameTooLong',
      message: expect.stringContaining('rename the S3Backup to at most 45 characters'),
    });
    expect(s3BackupProblem(media, { ...valid, schedule: 'daily' })).toMatchObject({
      reason: 'InvalidSchedule',
    });
    const repositoryElsewhere = {
      ...valid,
      repository: { ...valid.repository, secretRef: { name: 'r', namespace: 'vault' } },
    };
    expect(s3BackupProblem(media, repositoryElsewhere)).toMatchObject({
      reason: 'SecretNamespaceMismatch',
      message: expect.stringContaining('repository.secretRef'),
    });
  });
});
