import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Clock, JsonLogger, loadConfig } from '@platform/core';
import {
  CoreKinds,
  KubeClient,
  type KubeObject,
  OperatorModule,
  OperatorRuntime,
  ThirdPartyKinds,
} from '@platform/kube';
import {
  type GroupwareInstance,
  type GroupwareInstanceSpecInput,
  GroupwareKindRefs,
  GroupwareOperatorModule,
  type HelmRelease,
  type PostgresCluster,
} from '@platform/groupware';
import { eventually, type FakeClock, type FakeKubeApiServer } from '@platform/testing';
import supertest from 'supertest';
import {
  type GroupwareOperator,
  groupwareObject,
  startGroupwareApiServer,
  startGroupwareOperator,
} from './support.js';

/*
 * GroupwareInstance tests: the operator against the fake API server, with the test playing
 * Flux (HelmRelease status), CloudNativePG (Cluster status) and the Job controller.
 */

export const InstanceKind = GroupwareKindRefs.GroupwareInstance;
export const ProfileKind = GroupwareKindRefs.GroupwareProfile;

export interface InstanceTest {
  server: FakeKubeApiServer;
  operator: GroupwareOperator;
  close(): Promise<void>;
}

export async function startInstanceTest(): Promise<InstanceTest> {
  const server = await startGroupwareApiServer();
  const operator = await startGroupwareOperator(server);
  return {
    server,
    operator,
    close: async () => {
      await operator.close();
      await server.stop();
    },
  };
}

/** Creates an instance through the test's operator client, or through `client`. */
export async function createInstance(
  target: InstanceTest | KubeClient,
  namespace: string,
  name: string,
  spec: GroupwareInstanceSpecInput,
): Promise<GroupwareInstance> {
  const client = target instanceof KubeClient ? target : target.operator.client;
  return client.create(
    InstanceKind,
    groupwareObject('GroupwareInstance', name, spec, namespace) as GroupwareInstance,
  );
}

/** Replaces the spec as `kubectl apply` would (the generation moves). */
export async function updateSpec(
  test: InstanceTest,
  namespace: string,
  name: string,
  change: (spec: GroupwareInstanceSpecInput) => GroupwareInstanceSpecInput,
): Promise<void> {
  const live = (await test.operator.client.get<GroupwareInstance>(InstanceKind, namespace, name))!;
  await test.operator.client.replace(InstanceKind, {
    ...live,
    spec: change(live.spec as GroupwareInstanceSpecInput) as GroupwareInstance['spec'],
  });
}

export function instanceOf(
  server: FakeKubeApiServer,
  namespace: string,
  name: string,
): GroupwareInstance | undefined {
  return server.get<GroupwareInstance>(InstanceKind, namespace, name);
}

export async function waitForPhase(
  test: InstanceTest,
  namespace: string,
  name: string,
  phase: string,
): Promise<GroupwareInstance> {
  const reached = await eventually(
    () => instanceOf(test.server, namespace, name),
    (instance) => instance?.status?.phase === phase,
    { what: `${namespace}/${name} in phase ${phase}` },
  );
  await test.operator.settled();
  return reached!;
}

export function conditionOf(instance: GroupwareInstance | undefined, type: string) {
  return instance?.status?.conditions?.find((condition) => condition.type === type);
}

export async function releaseOf(
  test: InstanceTest,
  namespace: string,
  name: string,
): Promise<HelmRelease> {
  return eventually(
    () => test.server.get<HelmRelease>(ThirdPartyKinds.HelmRelease, namespace, name),
    { what: `HelmRelease ${namespace}/${name}` },
  );
}

/** Flux's verdict on the release's current generation: Ready, or failed with `reason`. */
export function settleRelease(
  server: FakeKubeApiServer,
  namespace: string,
  name: string,
  outcome: { ready: true } | { ready: false; reason: string; message: string },
): void {
  const release = server.get<HelmRelease>(ThirdPartyKinds.HelmRelease, namespace, name)!;
  const generation = release.metadata.generation;
  const history = release.status?.history ?? [];
  server.put(ThirdPartyKinds.HelmRelease, {
    ...release,
    status: {
      observedGeneration: generation,
      // Newest first; a failed upgrade keeps the revision deployed before it.
      history: outcome.ready
        ? [
            { version: history.length + 1, status: 'deployed' },
            ...history.map((revision) => ({ ...revision, status: 'superseded' })),
          ]
        : history,
      conditions: [
        outcome.ready
          ? {
              type: 'Ready',
              status: 'True',
              reason: 'UpgradeSucceeded',
              message: 'Helm upgrade succeeded',
              observedGeneration: generation,
              lastTransitionTime: '2024-05-03T06:01:00Z',
            }
          : {
              type: 'Ready',
              status: 'False',
              reason: outcome.reason,
              message: outcome.message,
              observedGeneration: generation,
              lastTransitionTime: '2024-05-03T06:01:00Z',
            },
      ],
    },
  });
}

/** CloudNativePG's report on the cluster: healthy or `phase`. */
export function settleDatabase(
  server: FakeKubeApiServer,
  namespace: string,
  name: string,
  phase = 'Cluster in healthy state',
): void {
  const cluster = server.get<PostgresCluster>(ThirdPartyKinds.PostgresCluster, namespace, name)!;
  const instances = (cluster.spec as { instances: number }).instances;
  server.put(ThirdPartyKinds.PostgresCluster, {
    ...cluster,
    status: { phase, instances, readyInstances: instances },
  });
}

/** Ends a Job as the Job controller would. */
export function finishJob(
  server: FakeKubeApiServer,
  namespace: string,
  name: string,
  outcome: { succeeded: boolean; at: string },
): void {
  const job = server.get<KubeObject>(CoreKinds.Job, namespace, name)!;
  server.put(CoreKinds.Job, {
    ...job,
    status: outcome.succeeded
      ? {
          succeeded: 1,
          completionTime: outcome.at,
          conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: outcome.at }],
        }
      : {
          failed: 1,
          conditions: [
            {
              type: 'Failed',
              status: 'True',
              reason: 'BackoffLimitExceeded',
              lastTransitionTime: outcome.at,
            },
          ],
        },
  });
}

/** The Events about an object, oldest first, as `reason` or `type/reason`. */
export function eventReasons(server: FakeKubeApiServer, namespace: string, name: string): string[] {
  return server
    .list<KubeObject & { involvedObject: { name: string }; reason: string; type: string }>(
      CoreKinds.Event,
      namespace,
    )
    .filter((event) => event.involvedObject.name === name)
    .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
    .map((event) => (event.type === 'Warning' ? `Warning/${event.reason}` : event.reason));
}

/** Jobs of an instance for a purpose (`apps`), by name. */
export function occJobs(server: FakeKubeApiServer, namespace: string, instance: string) {
  return server
    .list<KubeObject>(CoreKinds.Job, namespace)
    .filter((job) => job.metadata.labels?.['k8s.neutral.com/instance'] === instance)
    .filter((job) => job.metadata.labels?.['k8s.neutral.com/occ-purpose'] === 'apps');
}

export interface OperatorReplica {
  name: string;
  /** Writes this replica sent, leases aside. */
  writes: string[];
  app: INestApplication;
  runtime: OperatorRuntime;
  metrics(): Promise<string>;
  close(): Promise<void>;
}

/**
 * One replica of the groupware operator with leader election on, as a Deployment with two
 * replicas runs it; replicas share the lease `groupware-operator-leader` in `operators`.
 */
export async function startOperatorReplica(
  server: FakeKubeApiServer,
  name: string,
  clock: FakeClock,
): Promise<OperatorReplica> {
  const config = loadConfig(
    {
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      LEADER_ELECTION: 'true',
      LEADER_ELECTION_NAMESPACE: 'operators',
      POD_NAME: name,
      RESYNC_PERIOD_SECONDS: '600',
    },
    { usesSecretKey: false },
  );
  const client = KubeClient.fromKubeConfig(server.kubeConfig());
  const writes = recordWrites(client);
  const moduleRef = await Test.createTestingModule({
    imports: [
      OperatorModule.forRoot(config, [
        GroupwareOperatorModule.forRoot({
          providers: [{ provide: KubeClient, useValue: client }],
          timing: {
            clockCheckMs: 20,
            retryBaseMs: 50,
            retryMaxMs: 1000,
            leaseRetryMs: 40,
            watchRetryMs: 40,
          },
        }),
      ]),
    ],
  })
    .overrideProvider(Clock)
    .useValue(clock)
    .compile();
  const app = moduleRef.createNestApplication({
    logger: JsonLogger.create(name, config.logLevel),
  });
  await app.init();
  const runtime = app.get(OperatorRuntime, { strict: false });
  await runtime.whenSynced();
  return {
    name,
    writes,
    app,
    runtime,
    metrics: async () =>
      (await supertest(app.getHttpServer() as Parameters<typeof supertest>[0]).get('/metrics'))
        .text,
    close: () => app.close(),
  };
}

/** Notes `<method> <kind>/<name>` of every write through `client` but the lease's. */
function recordWrites(client: KubeClient): string[] {
  const writes: string[] = [];
  const methods = ['create', 'replace', 'mergePatch', 'mergePatchStatus', 'delete'] as const;
  for (const method of methods) {
    const original = client[method].bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const kind = args[0] as { kind: string };
      const named = args[1] as KubeObject | string | undefined;
      const name =
        typeof named === 'object' ? named.metadata.name : (args[2] as string | undefined);
      if (kind.kind !== 'Lease') writes.push(`${method} ${kind.kind}/${name}`);
      return original(...args);
    };
  }
  return writes;
}
