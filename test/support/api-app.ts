import type { ApiVersionPolicy } from '@platform/core';
import { PlatformAdminStartup } from '@platform/identity';
import { WorkerRuntimeModule } from '@platform/queue';
import { createTestApp, SmtpSink, type TestApp, type TestAppOptions } from '@platform/testing';
import { ApiModule } from '../../apps/api/api.module.js';
import { WorkerProcessorsModule } from '../../apps/worker/worker-processors.module.js';

export interface ApiTestAppOptions extends TestAppOptions {
  apiVersions?: ApiVersionPolicy;
  /**
   * Also run the worker's processors in this process, so jobs the API enqueues are processed
   * through the real Redis (under the app's own prefix) and the test sees their effects.
   */
  withWorker?: boolean;
}

/**
 * The real API application, as production composes it, on a per-file database. With a
 * platform admin configured it resolves once the API ensured the account (in production
 * `migrate` has made it before the API starts), so a test can log in as the admin at once.
 */
export async function createApiTestApp(options: ApiTestAppOptions = {}): Promise<TestApp> {
  const worker = options.withWorker ? [WorkerRuntimeModule, WorkerProcessorsModule] : [];
  const t = await createTestApp(
    (config) => ApiModule.forRoot(config, { apiVersions: options.apiVersions }),
    { ...options, imports: [...worker, ...(options.imports ?? [])] },
  );
  if (!(await t.get(PlatformAdminStartup).ensured)) {
    await t.close();
    throw new Error('the platform admin was not ensured');
  }
  return t;
}

export interface MailingTestApp extends TestApp {
  /** Receives every e-mail the app sends (SMTP_URL points at it). */
  sink: SmtpSink;
}

/** The API with its worker processors and a real SMTP sink; `close()` stops both. */
export async function createMailingApiTestApp(
  options: ApiTestAppOptions = {},
): Promise<MailingTestApp> {
  const sink = await SmtpSink.start();
  try {
    const app = await createApiTestApp({
      ...options,
      withWorker: true,
      config: { ...options.config, smtpUrl: sink.url },
    });
    return {
      ...app,
      sink,
      close: async () => {
        await app.close();
        await sink.close();
      },
    };
  } catch (error) {
    await sink.close();
    throw error;
  }
}
