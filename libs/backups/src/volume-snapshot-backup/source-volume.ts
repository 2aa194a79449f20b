import type { V1PersistentVolumeSpec } from '@kubernetes/client-node';
import { CoreKinds, type KubeClient, type KubeObject } from '@platform/kube';

/** The Cinder CSI driver: its volume handle is the Cinder volume id. */
export const CINDER_CSI_DRIVER = 'cinder.csi.openstack.org';
/** With `openstack.autoDiscover: false`, the claim's annotation names its Cinder volume. */
export const CINDER_VOLUME_ANNOTATION = 'backups.k8s.neutral.com/cinder-volume-id';

export type PersistentVolumeObject = KubeObject<
  V1PersistentVolumeSpec & { cinder?: { volumeID?: string } }
>;
type ClaimObject = KubeObject<{ volumeName?: string }, { phase?: string }>;

export interface SourceVolume {
  cinderVolumeId: string;
  /** The claim's persistent volume (empty when the annotation named the Cinder volume). */
  persistentVolume: PersistentVolumeObject;
}

/** Why the source cannot be snapshotted; `waiting` problems may clear by themselves. */
export interface SourceProblem {
  reason: string;
  message: string;
  waiting: boolean;
}

/**
 * The Cinder volume behind a claim: the volume handle of its Cinder CSI persistent volume (or
 * the in-tree `cinder.volumeID` of older clusters), or with autoDiscover off the claim's
 * annotation.
 */
export async function findSourceVolume(
  client: KubeClient,
  namespace: string,
  claimName: string,
  autoDiscover: boolean,
): Promise<SourceVolume | SourceProblem> {
  const where = `PersistentVolumeClaim ${namespace}/${claimName}`;
  const claim = await client.get<ClaimObject>(
    CoreKinds.PersistentVolumeClaim,
    namespace,
    claimName,
  );
  if (!claim) return { reason: 'ClaimNotFound', message: `${where} does not exist`, waiting: true };
  const volumeName = claim.spec?.volumeName;
  const volume = volumeName
    ? await client.get<PersistentVolumeObject>(CoreKinds.PersistentVolume, undefined, volumeName)
    : undefined;
  if (!autoDiscover) {
    const id = claim.metadata.annotations?.[CINDER_VOLUME_ANNOTATION];
    if (!id) {
      return {
        reason: 'VolumeNotNamed',
        message: `openstack.autoDiscover is false and ${where} has no ${CINDER_VOLUME_ANNOTATION} annotation`,
        waiting: false,
      };
    }
    return { cinderVolumeId: id, persistentVolume: volume ?? emptyVolume() };
  }
  if (!volumeName || !volume) {
    return { reason: 'ClaimNotBound', message: `${where} is not bound to a volume`, waiting: true };
  }
  const csi = volume.spec?.csi;
  const id = csi?.driver === CINDER_CSI_DRIVER ? csi.volumeHandle : volume.spec?.cinder?.volumeID;
  if (!id) {
    return {
      reason: 'NotCinderVolume',
      message: `PersistentVolume ${volumeName} of ${where} is not a Cinder volume (CSI driver ${csi?.driver ?? 'none'})`,
      waiting: false,
    };
  }
  return { cinderVolumeId: id, persistentVolume: volume };
}

function emptyVolume(): PersistentVolumeObject {
  return { apiVersion: 'v1', kind: 'PersistentVolume', metadata: {}, spec: {} };
}
