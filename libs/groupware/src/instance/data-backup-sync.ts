import type { V1Job } from '@kubernetes/client-node';
import {
  CoreKinds,
  ensureObject,
  type EventRecorder,
  type KubeObject,
  type ReconcileContext,
} from '@platform/kube';
import type { GroupwareInstance } from '../crds/types.js';
import { dataBackupCronJob, dataCleanupJob } from './data-backup.js';
import { jobState } from './instance-apps.js';
import { instanceObjectNames } from './instance-names.js';

/** Thrown from finalize while the backup data is being deleted: the finalizer stays. */
export class CleanupPending extends Error {
  override readonly name = 'CleanupPending';
}

/** The data-backup CronJob exists exactly while `backups.data.enabled`. */
export async function syncDataBackup(
  context: ReconcileContext,
  instance: GroupwareInstance,
): Promise<void> {
  if (instance.spec!.backups.data.enabled) {
    await ensureObject(context, CoreKinds.CronJob, dataBackupCronJob(instance) as KubeObject);
    return;
  }
  const namespace = instance.metadata.namespace!;
  const name = instanceObjectNames(instance.metadata.name!).dataBackup;
  const live = context.cache(CoreKinds.CronJob).get(namespace, name);
  if (live?.metadata.ownerReferences?.some((ref) => ref.uid === instance.metadata.uid)) {
    await context.client.delete(CoreKinds.CronJob, namespace, name, {
      propagationPolicy: 'Background',
    });
  }
}

/**
 * With `backups.data.deleteOnCleanup`, runs the cleanup Job and returns only once it
 * succeeded; until then it throws CleanupPending, which keeps the finalizer (the runtime
 * retries, and the Job's events bring the instance back). A failed Job is replaced.
 */
export async function cleanUpBackupData(
  context: ReconcileContext,
  instance: GroupwareInstance,
  events: EventRecorder,
): Promise<void> {
  const data = instance.spec?.backups?.data;
  if (!data?.deleteOnCleanup || !data.bucket || !data.credentialsSecret) return;
  const namespace = instance.metadata.namespace!;
  const name = instanceObjectNames(instance.metadata.name!).dataCleanup;
  const job =
    (context.cache(CoreKinds.Job).get(namespace, name) as V1Job | undefined) ??
    ((await context.client.get(CoreKinds.Job, namespace, name)) as V1Job | undefined);
  const state = jobState(job);
  if (state === 'succeeded') return;
  if (state === 'missing') {
    await context.client.create(CoreKinds.Job, dataCleanupJob(instance) as KubeObject);
    throw new CleanupPending(`deleting the backup data of ${namespace}/${instance.metadata.name}`);
  }
  if (state === 'failed') {
    await events
      .record(
        context.client,
        {
          object: instance,
          reason: 'CleanupFailed',
          message: `Job ${name} failed to delete the backup data; retrying`,
          warning: true,
        },
        context.clock.now(),
      )
      .catch(() => undefined);
    await context.client.delete(CoreKinds.Job, namespace, name, {
      propagationPolicy: 'Background',
    });
  }
  throw new CleanupPending(`waiting for Job ${name} to delete the backup data`);
}
