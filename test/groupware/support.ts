import type { INestApplication, Provider, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Clock, JsonLogger, loadConfig } from '@platform/core';
import {
  GROUPWARE_RECONCILERS,
  groupwareCrds,
  GroupwareInstanceReconciler,
  GroupwareOperatorModule,
} from '@platform/groupware';
import {
  KubeClient,
  type KubeObject,
  OperatorModule,
  OperatorRuntime,
  type Reconciler,
} from '@platform/kube';
import { FakeClock, FakeKubeApiServer, THIRD_PARTY_CRDS } from '@platform/testing';
import supertest from 'supertest';

const CRD_COLLECTION = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/**
 * A fake API server serving the groupware kinds from the chart's CRDs, and Flux's and
 * CloudNativePG's kinds as a cluster running the operator has them.
 */
export async function startGroupwareApiServer(): Promise<FakeKubeApiServer> {
  const server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 200 });
  // Sent as plain JSON: client-node's typed models would drop `default` and `x-kubernetes-*`.
  for (const crd of [...groupwareCrds(), ...THIRD_PARTY_CRDS]) {
    const response = await fetch(`${server.url}${CRD_COLLECTION}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(crd),
    });
    if (response.status !== 201) throw new Error(`CRD refused: ${await response.text()}`);
  }
  return server;
}

export interface GroupwareOperator {
  app: INestApplication;
  clock: FakeClock;
  runtime: OperatorRuntime;
  client: KubeClient;
  /** The operator's Prometheus exposition. */
  metrics(): Promise<string>;
  /** Moves the clock (resync, requeues, retries) and lets the work it makes due finish. */
  advance(by: Parameters<FakeClock['advance']>[0]): Promise<void>;
  /** Resolves when nothing is queued or running. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export const RESYNC_PERIOD_SECONDS = 600;
/** Where the operator's fake clock starts (condition transition times). */
export const OPERATOR_CLOCK_START = '2024-05-03T06:00:00Z';

export interface GroupwareOperatorOptions {
  clock?: FakeClock;
  providers?: Provider[];
  /** The reconcilers to run (default all); tests leave out those whose part they play. */
  reconcilers?: Type<Reconciler>[];
}

/**
 * Every reconciler but the GroupwareInstance one, for tests that play its part by writing
 * instance status themselves.
 */
export const WITHOUT_INSTANCE_RECONCILER = GROUPWARE_RECONCILERS.filter(
  (reconciler) => reconciler !== GroupwareInstanceReconciler,
);

/**
 * The groupware operator, in-process, as apps/groupware-operator composes it: probes,
 * metrics, the runtime (no leader election: one replica) and its reconcilers, against
 * `server`, with a fake clock.
 */
export async function startGroupwareOperator(
  server: FakeKubeApiServer,
  options: GroupwareOperatorOptions = {},
): Promise<GroupwareOperator> {
  const clock = options.clock ?? new FakeClock(OPERATOR_CLOCK_START);
  const config = loadConfig(
    {
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      LEADER_ELECTION: 'false',
      RESYNC_PERIOD_SECONDS: String(RESYNC_PERIOD_SECONDS),
    },
    { usesSecretKey: false },
  );
  const logger = JsonLogger.create('groupware-operator', config.logLevel);
  const client = KubeClient.fromKubeConfig(server.kubeConfig());
  const moduleRef = await Test.createTestingModule({
    imports: [
      OperatorModule.forRoot(config, [
        GroupwareOperatorModule.forRoot({
          providers: [{ provide: KubeClient, useValue: client }, ...(options.providers ?? [])],
          reconcilers: options.reconcilers,
          timing: { clockCheckMs: 20, retryBaseMs: 50, retryMaxMs: 1000 },
        }),
      ]),
    ],
  })
    .overrideProvider(Clock)
    .useValue(clock)
    .compile();
  const app = moduleRef.createNestApplication({ logger });
  await app.init();
  const runtime = app.get(OperatorRuntime, { strict: false });
  await runtime.whenSynced();
  const settled = () => runtime.idle();
  return {
    app,
    clock,
    runtime,
    client,
    metrics: async () =>
      (await supertest(app.getHttpServer() as Parameters<typeof supertest>[0]).get('/metrics'))
        .text,
    advance: async (by) => {
      clock.advance(by);
      // The runtime looks at the clock every clockCheckMs; give it a few looks.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await settled();
    },
    settled,
    close: () => app.close(),
  };
}

/** A groupware object as a client writes it. */
export function groupwareObject<Spec>(
  kind: string,
  name: string,
  spec: Spec,
  namespace?: string,
): KubeObject<Spec> {
  return {
    apiVersion: 'k8s.neutral.com/v1alpha1',
    kind,
    metadata: namespace ? { name, namespace } : { name },
    spec,
  };
}
