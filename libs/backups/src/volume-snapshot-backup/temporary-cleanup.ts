import { CoreKinds, type KubeClient } from '@platform/kube';
import { OpenStackHttpError } from '@platform/openstack-client';
import type { CinderClient } from './cinder-client.js';

/** Cinder statuses in which a volume cannot be deleted yet (attached, or on its way). */
const VOLUME_BUSY = new Set([
  'in-use',
  'attaching',
  'detaching',
  'reserved',
  'creating',
  'deleting',
]);
/** Snapshot statuses Cinder refuses a delete in, or that a delete is already under way in. */
const SNAPSHOT_BUSY = new Set(['creating', 'deleting']);

/**
 * Removes what a run made in Kubernetes and Cinder, every step safe to repeat. Each answers
 * undefined when its object is gone, or why it has to be looked at again later.
 */
export class TemporaryCleanup {
  constructor(
    private readonly client: KubeClient,
    private readonly cinder: () => Promise<CinderClient>,
  ) {}

  /** The claim first (it holds the volume), then the persistent volume. */
  async removeKubernetesObjects(
    namespace: string,
    names: { temporaryClaim: string; persistentVolume: string },
  ): Promise<void> {
    await this.client.delete(CoreKinds.PersistentVolumeClaim, namespace, names.temporaryClaim);
    await this.client.delete(CoreKinds.PersistentVolume, undefined, names.persistentVolume);
  }

  /** Deletes the temporary Cinder volume once it is detached; undefined once it is gone. */
  async removeVolume(id: string): Promise<string | undefined> {
    const cinder = await this.cinder();
    const volume = await cinder.volume(id);
    if (!volume) return undefined;
    if (VOLUME_BUSY.has(volume.status)) {
      return `waiting to delete temporary volume ${id} (status ${volume.status})`;
    }
    const refused = await refusal(() => cinder.deleteVolume(id));
    if (refused) return `Cinder refused to delete temporary volume ${id} yet: ${refused}`;
    const left = await cinder.volume(id);
    return left
      ? `waiting for temporary volume ${id} to be deleted (status ${left.status})`
      : undefined;
  }

  /** Deletes a snapshot once Cinder allows it; undefined once it is gone. */
  async removeSnapshot(id: string): Promise<string | undefined> {
    const cinder = await this.cinder();
    const snapshot = await cinder.snapshot(id);
    if (!snapshot) return undefined;
    if (SNAPSHOT_BUSY.has(snapshot.status)) {
      return `waiting to delete snapshot ${id} (status ${snapshot.status})`;
    }
    const refused = await refusal(() => cinder.deleteSnapshot(id));
    if (refused) return `Cinder refused to delete snapshot ${id} yet: ${refused}`;
    return undefined;
  }
}

/** Runs a delete; a 400 (the object's state forbids it for now) answers Cinder's reason. */
async function refusal(remove: () => Promise<void>): Promise<string | undefined> {
  try {
    await remove();
    return undefined;
  } catch (error) {
    if (error instanceof OpenStackHttpError && error.status === 400) {
      return error.upstreamMessage ?? error.message;
    }
    throw error;
  }
}
