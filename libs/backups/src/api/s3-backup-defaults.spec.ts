import { describe, expect, it } from '@jest/globals';
import { withS3BackupDefaults } from './s3-backup-defaults.js';

const repository = {
  type: 's3' as const,
  url: 's3:https://s3.example/r',
  secretRef: { name: 'r' },
};

describe('withS3BackupDefaults', () => {
  it('fills the schema defaults, the image repository from the environment and the host', () => {
    const spec = withS3BackupDefaults(
      { source: { bucket: 'media', endpoint: 'https://s3.example' }, repository },
      'shop',
      { BACKUP_IMAGE_REPOSITORY: 'mirror.example/restic' },
    );
    expect(spec).toEqual({
      source: { bucket: 'media', endpoint: 'https://s3.example', forcePathStyle: true },
      repository,
      schedule: '0 3 * * *',
      host: 'shop-media',
      cache: { enabled: true, size: '5Gi', accessMode: 'ReadWriteOnce' },
      resources: {
        requests: { memory: '256Mi', cpu: '200m' },
        limits: { memory: '1Gi', cpu: '1000m' },
      },
      image: { repository: 'mirror.example/restic', tag: '0.18.1', pullPolicy: 'Always' },
      syncImage: { repository: 'rclone/rclone', tag: '1.75.1', pullPolicy: 'IfNotPresent' },
      jobConfig: { keepSuccessfulJobs: 3, keepFailedJobs: 3 },
      suspended: false,
    });
  });

  it('keeps what is set, and falls back to the public restic image without the environment', () => {
    const spec = withS3BackupDefaults(
      {
        source: { bucket: 'media', endpoint: 'https://s3.example', forcePathStyle: false },
        repository,
        host: 'media-primary',
        cache: { enabled: false },
      },
      'shop',
      {},
    );
    expect(spec.source.forcePathStyle).toBe(false);
    expect(spec.host).toBe('media-primary');
    expect(spec.cache).toEqual({ enabled: false, size: '5Gi', accessMode: 'ReadWriteOnce' });
    expect(spec.image.repository).toBe('registry.neutral.com/public/restic');
  });
});
