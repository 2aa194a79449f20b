import type {
  LocalObjectReference,
  RestoreSourceInfo,
  VolumeBackup,
  VolumeRestore,
} from '../api/types.js';
import { type RestoreSource, resolveRestoreSource } from '../render/volume-restore.js';

/** Why a restore cannot start; `retryAfterMs` marks what may resolve itself (else it is final). */
export interface RestoreProblem {
  reason: string;
  message: string;
  retryAfterMs?: number;
}

/** A referenced VolumeBackup that does not exist (yet) is looked for again this often. */
export const SOURCE_RETRY_MS = 30_000;

const INVALID_SOURCE = 'InvalidSource';

/**
 * The VolumeBackup a restore reads from (namespace defaulted to the restore's), undefined for a
 * restore that names its repository itself, or the problem when the source is not exactly one
 * of the two or is incomplete.
 */
export function sourceBackupRef(
  restore: VolumeRestore,
): Required<LocalObjectReference> | undefined | RestoreProblem {
  const namespace = restore.metadata.namespace ?? '';
  const { sourceBackup, sourceRepository } = restore.spec ?? {};
  if (sourceBackup && sourceRepository) {
    return invalid('give either sourceBackup or sourceRepository, not both');
  }
  if (!sourceBackup && !sourceRepository) return invalid('give sourceBackup or sourceRepository');
  const snapshotDate = sourceBackup?.snapshotDate ?? sourceRepository?.snapshotDate;
  if (snapshotDate !== undefined && Number.isNaN(Date.parse(snapshotDate))) {
    return invalid(`snapshotDate "${snapshotDate}" is not a date-time`);
  }
  if (sourceBackup) {
    const name = sourceBackup.volumeBackupRef?.name;
    if (!name) return invalid('sourceBackup.volumeBackupRef.name is required');
    return { name, namespace: sourceBackup.volumeBackupRef.namespace || namespace };
  }
  const missing = [
    !sourceRepository?.type && 'type',
    !sourceRepository?.url && 'url',
    !sourceRepository?.secretRef?.name && 'secretRef.name',
  ].filter((field): field is string => Boolean(field));
  if (missing.length > 0) return invalid(`sourceRepository needs ${missing.join(', ')}`);
  return undefined;
}

/**
 * The repository and host a restore reads: those of the referenced VolumeBackup (fetched by the
 * caller, undefined when it does not exist) or those the restore names. The repository's
 * credentials must live in the restore's namespace: a pod can only use Secrets of its own.
 */
export function restoreSource(
  restore: VolumeRestore,
  ref: Required<LocalObjectReference> | undefined,
  backup: VolumeBackup | undefined,
): RestoreSource | RestoreProblem {
  const namespace = restore.metadata.namespace ?? '';
  if (ref && !backup?.spec) {
    return {
      reason: 'SourceNotFound',
      message: `VolumeBackup ${ref.namespace}/${ref.name} does not exist`,
      retryAfterMs: SOURCE_RETRY_MS,
    };
  }
  if (ref && (!backup?.spec?.repository?.url || !backup.spec.repository.secretRef?.name)) {
    return invalid(`VolumeBackup ${ref.namespace}/${ref.name} has no usable repository`);
  }
  const source = resolveRestoreSource(restore, backup);
  const { secretRef } = source.repository;
  const secretNamespace = secretRef.namespace || (ref ? ref.namespace : namespace);
  if (secretNamespace !== namespace) {
    return {
      reason: 'SecretNamespaceMismatch',
      message:
        `the repository Secret ${secretNamespace}/${secretRef.name} is outside the restore's ` +
        `namespace ${namespace}; pods can only use Secrets of their own namespace`,
    };
  }
  return { ...source, repository: { ...source.repository, secretRef: { name: secretRef.name } } };
}

/** What the status shows about the source until the restore reports the snapshot it used. */
export function sourceInfoOf(
  restore: VolumeRestore,
  source: RestoreSource,
  paths: string[],
): RestoreSourceInfo {
  const selection = restore.spec?.sourceBackup ?? restore.spec?.sourceRepository;
  return {
    ...(selection?.snapshotId ? { snapshotId: selection.snapshotId } : {}),
    ...(selection?.snapshotDate ? { snapshotDate: selection.snapshotDate } : {}),
    repository: source.repository.url,
    ...(source.host ? { host: source.host } : {}),
    paths,
  };
}

export function isProblem(value: unknown): value is RestoreProblem {
  return typeof value === 'object' && value !== null && 'reason' in value && 'message' in value;
}

function invalid(message: string): RestoreProblem {
  return { reason: INVALID_SOURCE, message };
}
