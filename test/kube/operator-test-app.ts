import type { INestApplication, LoggerService, Provider, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Clock, JsonLogger, loadConfig, type OperatorSettings } from '@platform/core';
import {
  type KindRef,
  KubeClient,
  OperatorModule,
  OperatorRuntime,
  OperatorRuntimeModule,
  type OperatorTiming,
  type Reconciler,
} from '@platform/kube';
import { FakeClock, type FakeKubeApiServer } from '@platform/testing';
import supertest from 'supertest';

/** Timings short enough for tests; the clock-driven ones still wait for the FakeClock. */
export const FAST_TIMING: Partial<OperatorTiming> = {
  leaseRetryMs: 40,
  clockCheckMs: 10,
  watchRetryMs: 40,
  retryJitter: 0,
};

export interface OperatorTestApp {
  app: INestApplication;
  runtime: OperatorRuntime;
  clock: FakeClock;
  request(): ReturnType<typeof supertest>;
  get<T>(token: Type<T> | string | symbol): T;
  close(): Promise<void>;
}

export interface OperatorTestOptions {
  server: FakeKubeApiServer;
  reconcilers: Type<Reconciler>[];
  providers?: Provider[];
  name?: string;
  clock?: FakeClock;
  operator?: Partial<OperatorSettings>;
  timing?: Partial<OperatorTiming>;
}

/**
 * Boots an operator process as bootstrapOperator composes it (configuration, probes, the
 * runtime with the given reconcilers), talking to the fake API server, on a FakeClock.
 * Its informers start at once; wait with `runtime.whenSynced()` or on the probes.
 */
export async function startOperator(options: OperatorTestOptions): Promise<OperatorTestApp> {
  const base = loadConfig(
    { NODE_ENV: 'test', LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
    { usesSecretKey: false },
  );
  const config = {
    ...base,
    operator: { ...base.operator, leaderElectionNamespace: 'default', ...options.operator },
  };
  const clock = options.clock ?? new FakeClock('2030-01-01T00:00:00Z');
  const runtimeModule = OperatorRuntimeModule.forRoot({
    name: options.name ?? 'test-operator',
    reconcilers: options.reconcilers,
    providers: [
      { provide: KubeClient, useValue: KubeClient.fromKubeConfig(options.server.kubeConfig()) },
      ...(options.providers ?? []),
    ],
    timing: { ...FAST_TIMING, ...options.timing },
  });
  const moduleRef = await Test.createTestingModule({
    imports: [OperatorModule.forRoot(config, [runtimeModule])],
  })
    .overrideProvider(Clock)
    .useValue(clock)
    .compile();
  const app = moduleRef.createNestApplication({
    logger: JsonLogger.create('operator', config.logLevel),
  });
  await app.init();
  const server = app.getHttpServer() as Parameters<typeof supertest>[0];
  return {
    app,
    runtime: app.get(OperatorRuntime),
    clock,
    request: () => supertest(server),
    get: <T>(token: Type<T> | string | symbol) => app.get<T>(token, { strict: false }),
    close: () => app.close(),
  };
}

/** For runtime parts used outside an application; LOG_LEVEL=debug shows their lines. */
export const quietLogger: LoggerService =
  process.env.LOG_LEVEL && process.env.LOG_LEVEL !== 'silent'
    ? JsonLogger.create('operator', 'debug')
    : { log: () => undefined, warn: () => undefined, error: () => undefined };

/** A namespaced custom kind with a status subresource, as the operators' own kinds are. */
export const WidgetKind: KindRef = {
  group: 'test.k8s.neutral.com',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
};

export interface WidgetSpec {
  size?: number;
  schedule?: string;
}

export function widget(name: string, namespace = 'team-a', spec: WidgetSpec = { size: 1 }) {
  return {
    apiVersion: 'test.k8s.neutral.com/v1',
    kind: 'Widget',
    metadata: { name, namespace },
    spec,
  };
}
