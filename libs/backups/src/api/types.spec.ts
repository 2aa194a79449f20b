import { describe, expect, it } from '@jest/globals';
import type {
  RepositoryType,
  StoredVolumeBackupSpec,
  StoredVolumeRestoreSpec,
  VolumeBackupSpec,
  VolumeSnapshotBackupSpec,
  WebhookDeliveryState,
} from './types.js';

/** Compiles only when A and B are the same type. */
type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const sameType = <A, B>(same: Equal<A, B>) => expect(same).toBe(true);

// The types come from the schemas the CRDs are generated from: these fail to compile when a
// schema and its type drift apart.
describe('backup kinds inferred from the CRD schemas', () => {
  it('refuses local and sftp repositories where the CRD does; VolumeSnapshotBackup still lists them', () => {
    sameType<RepositoryType, 's3' | 'gcs' | 'azure' | 'rest'>(true);
    sameType<
      VolumeSnapshotBackupSpec['repository']['type'],
      's3' | 'gcs' | 'azure' | 'local' | 'sftp' | 'rest'
    >(true);
  });

  it('a written spec needs only the required fields; a stored one has every default', () => {
    sameType<VolumeBackupSpec['schedule'], string | undefined>(true);
    sameType<StoredVolumeBackupSpec['schedule'], string>(true);
    sameType<StoredVolumeBackupSpec['cache']['accessMode'], VolumeBackupAccessMode>(true);
    sameType<
      StoredVolumeBackupSpec['jobConfig'],
      { keepSuccessfulJobs: number; keepFailedJobs: number }
    >(true);
    sameType<StoredVolumeRestoreSpec['restoreSpec']['overwrite'], Overwrite>(true);
    sameType<StoredVolumeBackupSpec['host'], string | undefined>(true);
  });

  it('webhook delivery states are the enum of the status schema', () => {
    sameType<WebhookDeliveryState, 'Pending' | 'Delivered' | 'Failed'>(true);
  });
});

type VolumeBackupAccessMode =
  'ReadWriteOnce' | 'ReadOnlyMany' | 'ReadWriteMany' | 'ReadWriteOncePod';
type Overwrite = 'always' | 'if-changed' | 'if-newer' | 'never';
