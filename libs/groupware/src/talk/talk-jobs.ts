import type { V1EnvVar, V1Job } from '@kubernetes/client-node';
import { CoreKinds, isKubeApiError, type KubeObject, type ReconcileContext } from '@platform/kube';
import { DEFAULT_GROUPWARE_VERSION } from '../crds/groupware-instance.js';
import type { GroupwareInstance } from '../crds/types.js';
import { type OccCommand, occJob, occJobName, OccLabels } from '../occ/occ-job.js';
import { TALK_SECRET_ENV, type TalkBackend } from './talk-backends.js';
import { SECRET_COPY_KEY, TalkAnnotations } from './talk-secrets.js';

export const TalkJobAnnotations = {
  /** Name of the operation's first Job: the same for every attempt of the same commands. */
  operation: 'k8s.neutral.com/talk-operation',
  attempt: 'k8s.neutral.com/occ-attempt',
  /** Set on a failed Job: when the operator starts the next attempt. */
  retryAt: 'k8s.neutral.com/occ-retry-at',
} as const;

/** A failed Job is retried after 30 s, doubling per attempt up to 15 minutes. */
export const RETRY_BASE_MS = 30_000;
export const RETRY_MAX_MS = 15 * 60_000;

export function retryDelayMs(attempt: number): number {
  return Math.min(RETRY_BASE_MS * 2 ** (attempt - 1), RETRY_MAX_MS);
}

export type JobObject = KubeObject<
  V1Job['spec'],
  {
    succeeded?: number;
    failed?: number;
    conditions?: Array<{ type: string; status: string }>;
  }
>;

/** Commands to run against an instance; `secretCopy` names the Secret with the shared secret. */
export interface Operation {
  instance: GroupwareInstance;
  commands: OccCommand[];
  /** Version of the secret copy the commands read (a new one is a new operation). */
  revision?: string;
  secretCopy?: string;
}

export type OperationOutcome =
  | { state: 'running'; job: string }
  | { state: 'succeeded'; job: string }
  | { state: 'failed'; job: string; attempt: number; retryAt: Date };

function finished(job: JobObject, type: 'Complete' | 'Failed'): boolean {
  const counted = type === 'Complete' ? job.status?.succeeded : job.status?.failed;
  return (
    (counted ?? 0) > 0 ||
    (job.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True')
  );
}

const attemptOf = (job: JobObject) =>
  Number(job.metadata.annotations?.[TalkJobAnnotations.attempt] ?? '1') || 1;

/** The image the instance runs: the resolved version when known. */
export function instanceImage(instance: GroupwareInstance): string {
  const version =
    instance.status?.versionResolution?.resolvedVersion ??
    instance.spec?.version ??
    DEFAULT_GROUPWARE_VERSION;
  return `nextcloud:${version}`;
}

/**
 * The occ Jobs of one Talk server: started per operation, looked at through the informer cache,
 * retried as a new Job (attempt n+1) once a failed one's backoff has passed.
 */
export class TalkJobs {
  /** Jobs of operations this pass ran or looked at; the others are left over. */
  private readonly current = new Set<string>();

  constructor(
    private readonly context: ReconcileContext,
    private readonly backend: TalkBackend,
    private readonly server: string,
  ) {}

  /** Every Job of this server, from the cache. */
  all(): JobObject[] {
    return this.context
      .cache<JobObject>(CoreKinds.Job)
      .list(undefined, { [OccLabels.purpose]: this.backend.purpose })
      .filter((job) => job.metadata.annotations?.[TalkAnnotations.server] === this.server);
  }

  async run(operation: Operation): Promise<OperationOutcome> {
    const { instance } = operation;
    const id = occJobName(instance.metadata.name!, operation.commands, operation.revision);
    const attempts = this.all()
      .filter(
        (job) =>
          job.metadata.namespace === instance.metadata.namespace &&
          job.metadata.annotations?.[TalkJobAnnotations.operation] === id &&
          !job.metadata.deletionTimestamp,
      )
      .sort((a, b) => attemptOf(b) - attemptOf(a));
    const latest = attempts[0];
    if (!latest) return this.start(operation, id, 1);
    const name = latest.metadata.name!;
    this.current.add(`${latest.metadata.namespace}/${name}`);
    if (finished(latest, 'Complete')) return { state: 'succeeded', job: name };
    if (!finished(latest, 'Failed')) return { state: 'running', job: name };
    const attempt = attemptOf(latest);
    const retryAt = await this.retryTime(latest, attempt);
    if (this.context.clock.nowMs() < retryAt.getTime()) {
      return { state: 'failed', job: name, attempt, retryAt };
    }
    return this.start(operation, id, attempt + 1);
  }

  /** Deletes this server's Jobs that no operation of this pass looked at (done or superseded). */
  async removeLeftovers(): Promise<void> {
    const leftovers = this.all().filter(
      (job) => !this.current.has(`${job.metadata.namespace}/${job.metadata.name}`),
    );
    await Promise.all(
      leftovers.map((job) =>
        this.context.client.delete(CoreKinds.Job, job.metadata.namespace, job.metadata.name!, {
          propagationPolicy: 'Background',
        }),
      ),
    );
  }

  /** When the failed Job's successor starts; recorded on the Job the first time it is seen. */
  private async retryTime(job: JobObject, attempt: number): Promise<Date> {
    const recorded = job.metadata.annotations?.[TalkJobAnnotations.retryAt];
    if (recorded) return new Date(recorded);
    const retryAt = new Date(this.context.clock.nowMs() + retryDelayMs(attempt));
    await this.context.client.mergePatch(
      CoreKinds.Job,
      job.metadata.namespace,
      job.metadata.name!,
      {
        metadata: { annotations: { [TalkJobAnnotations.retryAt]: retryAt.toISOString() } },
      },
    );
    return retryAt;
  }

  private async start(
    operation: Operation,
    id: string,
    attempt: number,
  ): Promise<OperationOutcome> {
    const job = this.build(operation, id, attempt);
    const name = job.metadata!.name!;
    this.current.add(`${job.metadata!.namespace}/${name}`);
    try {
      await this.context.client.create(CoreKinds.Job, job as KubeObject);
    } catch (error) {
      // Created by an earlier pass the cache has not shown yet.
      if (!isKubeApiError(error, 409)) throw error;
    }
    return { state: 'running', job: name };
  }

  private build(operation: Operation, id: string, attempt: number): V1Job {
    const { instance, commands } = operation;
    const env: V1EnvVar[] | undefined = operation.secretCopy
      ? [
          {
            name: TALK_SECRET_ENV,
            valueFrom: { secretKeyRef: { name: operation.secretCopy, key: SECRET_COPY_KEY } },
          },
        ]
      : undefined;
    const job = occJob({
      instance,
      purpose: this.backend.purpose,
      commands,
      image: instanceImage(instance),
      env,
      revision: attempt === 1 ? operation.revision : `${operation.revision ?? ''}#${attempt}`,
    });
    job.metadata!.annotations = {
      [TalkAnnotations.server]: this.server,
      [TalkJobAnnotations.operation]: id,
      [TalkJobAnnotations.attempt]: String(attempt),
    };
    return job;
  }
}
