import type { V1EnvVar, V1Job } from '@kubernetes/client-node';
import { CoreKinds, isKubeApiError, type KubeObject, type ReconcileContext } from '@platform/kube';
import type { GroupwareInstance } from '../crds/types.js';
import { OccLabels, occJob, occJobName } from '../occ/occ-job.js';
import {
  APP_LABEL,
  type AppChange,
  APPS_PURPOSE,
  ATTEMPT_ANNOTATION,
  appsScript,
  appsWanted,
  attemptOf,
  jobState,
  pendingApps,
  retryAt,
} from './instance-apps.js';
import type { Failure } from './instance-status.js';

export interface AppsOutcome {
  /** `status.apps` after what completed. */
  applied: Record<string, boolean>;
  failure?: Failure;
  requeueAfterMs?: number;
  /** A failed Job was replaced by a new attempt. */
  retried?: boolean;
}

/** If a Job of the same name is still being deleted, look again after this long. */
const NAME_TAKEN_RETRY_MS = 1000;

/**
 * Brings `spec.apps` about through occ Jobs, one change (one app) at a time so that two occ
 * processes never write the instance's configuration at once. A failed Job is replaced by a
 * new attempt after a backoff (see retryAt) measured on the injected clock.
 */
export async function applyApps(
  context: ReconcileContext,
  instance: GroupwareInstance,
  image: string,
  env: V1EnvVar[],
): Promise<AppsOutcome> {
  const name = instance.metadata.name!;
  const namespace = instance.metadata.namespace!;
  const jobs = context.cache<KubeObject & V1Job>(CoreKinds.Job);
  const jobNamed = (jobName: string) => jobs.get(namespace, jobName) as V1Job | undefined;
  const wanted = appsWanted(instance.spec!);
  const applied = { ...(instance.status?.apps ?? {}) };
  for (const change of wanted) {
    if (jobState(jobNamed(occJobName(name, change.commands))) === 'succeeded') {
      applied[change.appId] = change.enabled;
    }
  }
  const next = pendingApps(name, wanted, applied, jobNamed)[0];
  if (!next) return { applied };
  const jobName = occJobName(name, next.commands);
  const job = jobNamed(jobName);
  const state = jobState(job);
  if (state === 'running') {
    const attempt = attemptOf(job!);
    // A retry in progress: the earlier attempts failed, and nothing has succeeded since.
    if (attempt === 1) return { applied };
    const message = `occ Job ${jobName} (${next.appId}) failed; attempt ${attempt} is running`;
    return { applied, failure: { cause: 'OccFailed', message } };
  }
  if (state === 'missing') {
    // The cache may not have a Job this operator created moments ago.
    if (await context.client.get(CoreKinds.Job, namespace, jobName)) return { applied };
    return { applied, requeueAfterMs: await startJob(context, instance, next, image, env, 1) };
  }
  const attempt = attemptOf(job!);
  const dueMs = retryAt(job!);
  const failure: Failure = {
    cause: 'OccFailed',
    message: `occ Job ${jobName} (${next.appId}) failed on attempt ${attempt}; retrying at ${new Date(dueMs).toISOString()}`,
  };
  const waitMs = dueMs - context.clock.nowMs();
  if (waitMs > 0) return { applied, failure, requeueAfterMs: waitMs };
  await context.client.delete(CoreKinds.Job, namespace, jobName, {
    propagationPolicy: 'Background',
  });
  const requeueAfterMs = await startJob(context, instance, next, image, env, attempt + 1);
  return { applied, failure, requeueAfterMs, retried: true };
}

/** Creates the change's Job and removes the app's earlier ones; a wait when the name is still taken. */
async function startJob(
  context: ReconcileContext,
  instance: GroupwareInstance,
  change: AppChange,
  image: string,
  env: V1EnvVar[],
  attempt: number,
): Promise<number | undefined> {
  const namespace = instance.metadata.namespace!;
  const jobEnv = [...env, ...(change.env ?? [])];
  const job = occJob({
    instance,
    purpose: APPS_PURPOSE,
    commands: change.commands,
    image,
    env: jobEnv.length > 0 ? jobEnv : undefined,
    labels: { [APP_LABEL]: change.appId },
  });
  job.metadata!.annotations = { [ATTEMPT_ANNOTATION]: String(attempt) };
  job.spec!.template.spec!.containers[0].command = ['/bin/sh', '-c', appsScript(change.commands)];
  const earlier = context
    .cache<KubeObject>(CoreKinds.Job)
    .list(namespace, {
      [OccLabels.instance]: instance.metadata.name!,
      [OccLabels.purpose]: APPS_PURPOSE,
      [APP_LABEL]: change.appId,
    })
    .filter((other) => other.metadata.name !== job.metadata!.name);
  await Promise.all(
    earlier.map((other) =>
      context.client.delete(CoreKinds.Job, namespace, other.metadata.name!, {
        propagationPolicy: 'Background',
      }),
    ),
  );
  try {
    await context.client.create(CoreKinds.Job, job as KubeObject);
    return undefined;
  } catch (error) {
    if (!isKubeApiError(error, 409)) throw error;
    return NAME_TAKEN_RETRY_MS;
  }
}
