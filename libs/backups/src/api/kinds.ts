import type { KindRef } from '@platform/kube';

export type { KindRef } from '@platform/kube';

export const BACKUP_GROUP = 'backups.k8s.neutral.com';
export const BACKUP_VERSION = 'v1';
export const BACKUP_API_VERSION = `${BACKUP_GROUP}/${BACKUP_VERSION}`;

function backupKind(kind: string, plural: string): KindRef {
  return { group: BACKUP_GROUP, version: BACKUP_VERSION, kind, plural, namespaced: true };
}

export const VolumeBackupKind: KindRef = backupKind('VolumeBackup', 'volumebackups');
export const VolumeRestoreKind: KindRef = backupKind('VolumeRestore', 'volumerestores');
export const VolumeSnapshotBackupKind: KindRef = backupKind(
  'VolumeSnapshotBackup',
  'volumesnapshotbackups',
);
export const S3BackupKind: KindRef = backupKind('S3Backup', 's3backups');

export const BackupKinds: readonly KindRef[] = [
  VolumeBackupKind,
  VolumeRestoreKind,
  VolumeSnapshotBackupKind,
  S3BackupKind,
];
