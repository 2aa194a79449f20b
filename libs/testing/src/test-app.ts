import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DynamicModule, INestApplication, ModuleMetadata, Type } from '@nestjs/common';
import { Test, type TestingModuleBuilder } from '@nestjs/testing';
import { type AppConfig, Clock, configureHttpApp, JsonLogger, loadConfig } from '@platform/core';
import supertest from 'supertest';
import { FakeClock } from './fake-clock.js';
import { OpenApiConformance } from './openapi-conformance.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { deleteRedisPrefix, uniqueRedisPrefix } from './test-redis.js';

export interface TestAppOptions {
  /** Extra modules, e.g. test-only controllers. */
  imports?: ModuleMetadata['imports'];
  controllers?: Type[];
  providers?: ModuleMetadata['providers'];
  config?: Partial<AppConfig>;
  clock?: FakeClock;
  /** Further overrides before compiling. */
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
  /**
   * Where the app's JSON log lines go (stdout when unset); `config.logLevel` still decides
   * which lines are written (silent by default in tests).
   */
  logDestination?: NodeJS.WritableStream;
  /** Listen on a real port of 127.0.0.1 (for WebSocket clients); `baseUrl` names it. */
  listen?: boolean;
  /**
   * Run as another replica of `shareWith`: the same database, Redis prefix and clock. The
   * database and keys stay with `shareWith`, which drops them: close this app first.
   */
  shareWith?: TestApp;
}

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  clock: FakeClock;
  database: TestDatabase;
  /** `http://127.0.0.1:<port>` when started with `listen: true`. */
  baseUrl?: string;
  /** A fresh supertest request builder against the app. */
  request(): ReturnType<typeof supertest>;
  /** A supertest agent that keeps cookies between requests. */
  agent(): ReturnType<typeof supertest.agent>;
  get<T>(token: Type<T> | string | symbol): T;
  /**
   * The answers so far that the OpenAPI document does not allow, and forgets them. A test that
   * provokes one on purpose takes it here; any other fails the test that made the request.
   */
  takeOpenApiViolations(): string[];
  close(): Promise<void>;
}

/** The cheapest argon2id hash the library accepts (1 MiB, one pass, one lane). */
export const TEST_PASSWORD_HASHING = { memoryCostKiB: 1024, timeCost: 1, parallelism: 1 };

/** The checkers of the apps that are open, read after each test. */
const openCheckers = new Set<OpenApiConformance>();

function failOnViolations(violations: string[]): void {
  if (violations.length > 0)
    throw new Error(
      `Answers the OpenAPI document does not allow:\n${violations.map((v) => `- ${v}`).join('\n')}`,
    );
}

// Jest's global hook, where this runs under Jest: an answer that breaks the document fails
// the test that received it (answers of beforeAll go to the first test).
const afterEachTest = (globalThis as { afterEach?: (hook: () => void) => void }).afterEach;
afterEachTest?.(() => failOnViolations([...openCheckers].flatMap((checker) => checker.take())));

/** Controllers a test adds itself, directly or through the modules it imports. */
function testOnlyControllers(options: TestAppOptions): Type[] {
  const fromModules = (options.imports ?? []).flatMap((imported) =>
    typeof imported === 'function'
      ? ((Reflect.getMetadata('controllers', imported) as Type[] | undefined) ?? [])
      : [],
  );
  return [...(options.controllers ?? []), ...fromModules];
}

/**
 * The configuration a test app runs with: defaults, plus its own database and Redis prefix.
 *
 * Password hashes are cheap (TEST_PASSWORD_HASHING). The alert dispatch sweep is off (`alertDispatchSweepIntervalMs: 0`) unless a test sets an
 * interval: tests write timeline events straight into `alert_event` without dispatch claims,
 * which the sweep would take for lost dispatches and notify. A test of the sweep turns it on
 * or calls `AlertDispatchSweeper.sweep()` itself.
 *
 * Outbound calls may reach private networks, since every test receiver listens on 127.0.0.1;
 * the tests of the address rules turn that off.
 */
export function testConfig(database: TestDatabase, overrides: Partial<AppConfig> = {}): AppConfig {
  return {
    ...loadConfig({
      NODE_ENV: 'test',
      REDIS_URL: process.env.REDIS_URL,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    }),
    databaseUrl: database.url,
    redisPrefix: uniqueRedisPrefix(),
    alertDispatchSweepIntervalMs: 0,
    // Every test client is 127.0.0.1: suites create accounts by the dozen from it. The
    // rate-limit tests clear this to count the loopback address like any other.
    rateLimitExemptNetworks: ['127.0.0.0/8', '::1'],
    // Cheap hashes: at the production cost each hash or check takes a quarter second of both
    // cores, and suites sign up and log in hundreds of accounts. passwords.spec.ts checks the
    // production cost.
    passwordHashing: TEST_PASSWORD_HASHING,
    ...overrides,
  };
}

/**
 * Boots a real HTTP application on its own PostgreSQL database (cloned from the migrated
 * template) and its own Redis key prefix, with a fake clock, exactly as production wires it.
 */
export async function createTestApp(
  rootModule: (config: AppConfig) => DynamicModule,
  options: TestAppOptions = {},
): Promise<TestApp> {
  const shared = options.shareWith;
  const database = shared ? shared.database : await createTestDatabase();
  const config = testConfig(database, {
    ...(shared ? { redisPrefix: shared.config.redisPrefix } : {}),
    ...options.config,
  });
  const clock = options.clock ?? shared?.clock ?? new FakeClock();
  const release = async () => {
    if (shared) return;
    await database.drop();
    await deleteRedisPrefix(config.redisPrefix);
  };
  const logger = JsonLogger.create('api', config.logLevel, options.logDestination);
  try {
    let builder = Test.createTestingModule({
      imports: [rootModule(config), ...(options.imports ?? [])],
      controllers: options.controllers ?? [],
      providers: options.providers ?? [],
    })
      .overrideProvider(Clock)
      .useValue(clock);
    if (options.override) builder = options.override(builder);
    const moduleRef = await builder.compile();
    const app = moduleRef.createNestApplication({ bodyParser: false, logger });
    const conformance = new OpenApiConformance(app, config, testOnlyControllers(options));
    app.use(conformance.middleware);
    configureHttpApp(app, config, logger);
    let baseUrl: string | undefined;
    try {
      await app.init();
      if (options.listen) {
        await app.listen(0, '127.0.0.1');
        const address = (app.getHttpServer() as Server).address() as AddressInfo;
        baseUrl = `http://127.0.0.1:${address.port}`;
      }
    } catch (error) {
      // A failed start still opened connections; close them so the test process can exit.
      await app.close().catch(() => undefined);
      throw error;
    }
    const server = app.getHttpServer() as Parameters<typeof supertest>[0];
    openCheckers.add(conformance);
    return {
      app,
      config,
      clock,
      database,
      baseUrl,
      request: () => supertest(server),
      agent: () => supertest.agent(server),
      get: <T>(token: Type<T> | string | symbol) => app.get<T>(token, { strict: false }),
      takeOpenApiViolations: () => conformance.take(),
      close: async () => {
        openCheckers.delete(conformance);
        await app.close();
        await release();
        failOnViolations(conformance.take());
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}
