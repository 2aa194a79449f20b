import { CoreKinds, ensureObject, type KubeObject } from '@platform/kube';
import type { DefaultedVolumeRestoreSpec } from '../api/defaults.js';
import type { RestoreTargetInfo, VolumeRestore } from '../api/types.js';
import { BackupLabels } from '../render/volume-backup.js';
import { renderRestorePvc, restoreTargetPvcName } from '../render/volume-restore.js';
import type { RestoreCluster } from './restore-cluster.js';
import type { RestoreProblem } from './restore-source.js';

/** A claim to restore into that does not exist (yet) is looked for again this often. */
export const TARGET_RETRY_MS = 15_000;

type ClaimObject = KubeObject<
  { storageClassName?: string; resources?: { requests?: Record<string, string> } },
  { capacity?: Record<string, string> }
>;

/** A target the spec cannot describe: a new claim needs a size, an existing one a name. */
export function targetProblem(spec: DefaultedVolumeRestoreSpec): RestoreProblem | undefined {
  const target = spec.targetPVC;
  if (target.createNew && !target.size) {
    return {
      reason: 'InvalidTarget',
      message: 'targetPVC.size is required when targetPVC.createNew is true',
    };
  }
  if (!target.createNew && !target.name) {
    return {
      reason: 'InvalidTarget',
      message: 'targetPVC.name is required when targetPVC.createNew is false',
    };
  }
  return undefined;
}

/**
 * Makes the claim to restore into ready: creates it (createNew), or finds the existing one.
 * A claim of the new claim's name that this restore did not create is never taken over, so a
 * restore cannot overwrite a volume by accident; restoring into an existing claim is opted in
 * with createNew false. The created claim has no owner: deleting the restore keeps the data.
 */
export async function prepareTarget(
  cluster: RestoreCluster,
  restore: VolumeRestore,
  spec: DefaultedVolumeRestoreSpec,
): Promise<RestoreTargetInfo | RestoreProblem> {
  const namespace = restore.metadata.namespace ?? '';
  const name = restoreTargetPvcName({ ...restore, spec });
  const client = cluster.context.client;
  const existing = await client.get<ClaimObject>(CoreKinds.PersistentVolumeClaim, namespace, name);
  if (spec.targetPVC.createNew) {
    if (
      existing &&
      existing.metadata.labels?.[BackupLabels.volumeRestore] !== restore.metadata.name
    ) {
      return {
        reason: 'InvalidTarget',
        message:
          `claim ${name} already exists and was not created by this restore; ` +
          'set targetPVC.createNew to false to restore into it',
      };
    }
    const desired = renderRestorePvc({ ...restore, spec }, { ownerReferences: !cluster.remote });
    const claim = await ensureObject(
      cluster.context,
      CoreKinds.PersistentVolumeClaim,
      desired as unknown as ClaimObject,
    );
    return {
      pvcName: name,
      pvcNamespace: namespace,
      ...optional('storageClass', claim.spec?.storageClassName ?? spec.targetPVC.storageClass),
      ...optional('size', spec.targetPVC.size),
      created: true,
    };
  }
  if (!existing || existing.metadata.deletionTimestamp) {
    return {
      reason: 'TargetClaimNotFound',
      message: `claim ${namespace}/${name} does not exist; the restore starts once it does`,
      retryAfterMs: TARGET_RETRY_MS,
    };
  }
  return {
    pvcName: name,
    pvcNamespace: namespace,
    ...optional('storageClass', existing.spec?.storageClassName),
    ...optional(
      'size',
      existing.status?.capacity?.storage ?? existing.spec?.resources?.requests?.storage,
    ),
    created: false,
  };
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value ? ({ [key]: value } as Record<K, string>) : {};
}
