import type { V1Job } from '@kubernetes/client-node';
import {
  CoreKinds,
  ensureObject,
  type EventRecorder,
  type FinalizeResult,
  isKubeApiError,
  type KubeObject,
  type ReconcileContext,
} from '@platform/kube';
import type { GroupwareInstance } from '../crds/types.js';
import { dataBackupCronJob, dataCleanupJob } from './data-backup.js';
import { ATTEMPT_ANNOTATION, attemptOf, jobState, retryAt } from './instance-apps.js';
import { instanceObjectNames } from './instance-names.js';

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
 * With `backups.data.deleteOnCleanup`, runs the cleanup Job and answers pending (the finalizer
 * stays) until it succeeded; the Job's events bring the instance back. A failed Job is replaced
 * after the same backoff as apps Jobs.
 */
export async function cleanUpBackupData(
  context: ReconcileContext,
  instance: GroupwareInstance,
  events: EventRecorder,
): Promise<FinalizeResult | undefined> {
  const data = instance.spec?.backups?.data;
  if (!data?.deleteOnCleanup || !data.bucket || !data.credentialsSecret) return undefined;
  const namespace = instance.metadata.namespace!;
  const name = instanceObjectNames(instance.metadata.name!).dataCleanup;
  const job =
    (context.cache(CoreKinds.Job).get(namespace, name) as V1Job | undefined) ??
    ((await context.client.get(CoreKinds.Job, namespace, name)) as V1Job | undefined);
  const state = jobState(job);
  if (state === 'succeeded') return undefined;
  if (state === 'missing') {
    await startCleanup(context, instance, 1);
    return { pending: true };
  }
  if (state === 'running') return { pending: true };
  const waitMs = retryAt(job!) - context.clock.nowMs();
  if (waitMs > 0) return { pending: true, requeueAfterMs: waitMs };
  await events
    .record(
      context.client,
      {
        object: instance,
        reason: 'CleanupFailed',
        message: `Job ${name} failed to delete the backup data; running it again`,
        warning: true,
      },
      context.clock.now(),
    )
    .catch(() => undefined);
  await context.client.delete(CoreKinds.Job, namespace, name, {
    propagationPolicy: 'Background',
  });
  await startCleanup(context, instance, attemptOf(job!) + 1);
  return { pending: true };
}

async function startCleanup(
  context: ReconcileContext,
  instance: GroupwareInstance,
  attempt: number,
): Promise<void> {
  const job = dataCleanupJob(instance);
  job.metadata!.annotations = { [ATTEMPT_ANNOTATION]: String(attempt) };
  try {
    await context.client.create(CoreKinds.Job, job as KubeObject);
  } catch (error) {
    // Still being deleted: the deletion's event brings the instance back.
    if (!isKubeApiError(error, 409)) throw error;
  }
}
