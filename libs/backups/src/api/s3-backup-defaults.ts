import { applySchemaDefaults } from '@platform/kube';
import { s3BackupSpec } from '../crds/definitions/s3-backup.js';
import { type DefaultedImage, defaultImageRepository } from './defaults.js';
import type { S3BackupSpec, StoredS3BackupSpec } from './types.js';

type Environment = Record<string, string | undefined>;

/** An S3Backup spec as the reconciler works with it: nothing left to default. */
export type DefaultedS3BackupSpec = StoredS3BackupSpec & { image: DefaultedImage; host: string };

/** `<namespace>-<bucket>`: the host the snapshots of an S3Backup are recorded under. */
export function defaultS3BackupHost(namespace: string, bucket: string): string {
  return `${namespace}-${bucket}`;
}

/**
 * Fills every default of the S3Backup schema, the way the API server does from the CRD (from
 * the same schema), plus the two it cannot: the restic image repository from the environment
 * and the host from the namespace.
 */
export function withS3BackupDefaults(
  spec: S3BackupSpec,
  namespace: string,
  env: Environment = process.env,
): DefaultedS3BackupSpec {
  const stored = applySchemaDefaults(s3BackupSpec.schema, spec) as StoredS3BackupSpec;
  return {
    ...stored,
    image: { ...stored.image, repository: stored.image.repository ?? defaultImageRepository(env) },
    host: stored.host ?? defaultS3BackupHost(namespace, stored.source.bucket),
  };
}
