import type { ApiVersionPolicy } from '@platform/core';
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

/** The real API application, as production composes it, on a per-file database. */
export function createApiTestApp(options: ApiTestAppOptions = {}): Promise<TestApp> {
  const worker = options.withWorker ? [WorkerRuntimeModule, WorkerProcessorsModule] : [];
  return createTestApp(
    (config) => ApiModule.forRoot(config, { apiVersions: options.apiVersions }),
    { ...options, imports: [...worker, ...(options.imports ?? [])] },
  );
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
