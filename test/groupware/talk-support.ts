import {
  GroupwareKindRefs,
  type GroupwareInstance,
  type GroupwareInstanceSpecInput,
  OccLabels,
  type TalkServerSpecInput,
} from '@platform/groupware';
import { CoreKinds, type KubeObject } from '@platform/kube';
import type { FakeKubeApiServer } from '@platform/testing';
import { groupwareObject } from './support.js';

/*
 * The parts other controllers play around the Talk reconcilers: the instance reconciler (an
 * instance's phase and resolved version in its status), the Job controller (a Job's outcome)
 * and whoever keeps the shared secrets.
 */

export type JobObject = KubeObject<
  {
    template: {
      spec: {
        containers: Array<{
          command: string[];
          image: string;
          env?: Array<{
            name: string;
            valueFrom?: { secretKeyRef?: { name: string; key: string } };
          }>;
        }>;
      };
    };
  },
  Record<string, unknown>
>;
export type SecretObject = KubeObject & { type?: string; data?: Record<string, string> };

type Phase = NonNullable<NonNullable<GroupwareInstance['status']>['phase']>;

export const SECRET_NAMESPACE = 'talk-system';
export const RESOLVED_VERSION = '29.0.16';

/** A GroupwareInstance as the instance reconciler leaves it: in `phase`, version resolved. */
export function putInstance(
  server: FakeKubeApiServer,
  namespace: string,
  name: string,
  options: { phase?: Phase; spreed?: boolean } = {},
): GroupwareInstance {
  const spec: GroupwareInstanceSpecInput = {
    version: '29',
    persistence: { enabled: true },
    apps: options.spreed === undefined ? {} : { spreed: { enabled: options.spreed } },
  };
  return server.put<GroupwareInstance>(GroupwareKindRefs.GroupwareInstance, {
    ...groupwareObject('GroupwareInstance', name, spec, namespace),
    status: {
      phase: options.phase ?? 'Ready',
      versionResolution: {
        requestedVersion: '29',
        resolvedVersion: RESOLVED_VERSION,
        chartVersion: '5.5.2',
        resolvedBy: 'builtin',
      },
    },
  } as GroupwareInstance);
}

/** Changes an instance as its owner (spec) or the instance reconciler (status) would. */
export function updateInstance(
  server: FakeKubeApiServer,
  namespace: string,
  name: string,
  change: { phase?: Phase; spreed?: boolean },
): void {
  const instance = server.get<GroupwareInstance>(
    GroupwareKindRefs.GroupwareInstance,
    namespace,
    name,
  )!;
  if (change.spreed !== undefined) {
    instance.spec = { ...instance.spec!, apps: { spreed: { enabled: change.spreed } } };
  }
  if (change.phase !== undefined) instance.status = { ...instance.status, phase: change.phase };
  server.put(GroupwareKindRefs.GroupwareInstance, instance);
}

export function putSharedSecret(
  server: FakeKubeApiServer,
  name: string,
  value: string,
  key = 'secret',
): void {
  server.put(CoreKinds.Secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: SECRET_NAMESPACE },
    type: 'Opaque',
    data: { [key]: Buffer.from(value).toString('base64') },
  });
}

export function talkServer(
  kind: 'SignalingServer' | 'RecordingServer',
  name: string,
  spec: TalkServerSpecInput,
): KubeObject<TalkServerSpecInput> {
  return groupwareObject(kind, name, spec);
}

/** The Jobs of one purpose (`signaling`, `recording`), sorted by namespace and name. */
export function talkJobs(server: FakeKubeApiServer, purpose: string): JobObject[] {
  return server
    .list<JobObject>(CoreKinds.Job)
    .filter((job) => job.metadata.labels?.[OccLabels.purpose] === purpose)
    .sort((a, b) =>
      `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(
        `${b.metadata.namespace}/${b.metadata.name}`,
      ),
    );
}

/** The shell script of a Job's container. */
export function scriptOf(job: JobObject): string {
  return job.spec!.template.spec.containers[0]!.command[2]!;
}

/** Ends a Job as the Job controller would. */
export function finishJob(server: FakeKubeApiServer, job: JobObject, succeeded: boolean): void {
  const live = server.get<JobObject>(CoreKinds.Job, job.metadata.namespace, job.metadata.name!)!;
  server.put(CoreKinds.Job, {
    ...live,
    status: succeeded
      ? { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] }
      : {
          failed: 1,
          conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }],
        },
  });
}

/** `php occ` lines as the Job script has them. */
export const occLine = (...words: string[]) =>
  `php /var/www/html/occ --no-interaction ${words.join(' ')}`;
