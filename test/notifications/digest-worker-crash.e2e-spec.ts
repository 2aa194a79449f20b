import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { JobName, JobQueue } from '@platform/queue';
import {
  buildDeployables,
  DeployableProcess,
  type DeployablesBuild,
  SmtpSink,
  type TestApp,
} from '@platform/testing';
import { DataSource } from 'typeorm';
import { createApiTestApp } from '../support/api-app.js';
import { bearer, createAccount, type TestAccount } from '../support/identity.js';

async function until<T>(probe: () => Promise<T>, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The worker deployable as its own process, killed (SIGKILL) after the SMTP server has the
 * digest but before the worker learned it was delivered and marked it: a new worker process
 * sends the batch again, so a crash can repeat a digest but never drop one.
 */
describe('digest flush across a killed worker process', () => {
  let sink: SmtpSink;
  let t: TestApp;
  let build: DeployablesBuild;
  let worker: DeployableProcess | undefined;
  let reader: TestAccount;

  beforeAll(async () => {
    build = buildDeployables();
    sink = await SmtpSink.start();
    // The API only; the worker runs as separate processes, on the real clock.
    t = await createApiTestApp({
      config: { smtpUrl: sink.url, digestFlushIntervalSeconds: 10 },
    });
    worker = await DeployableProcess.start(build.entry('worker'), t.config);
    reader = await createAccount(t, sink, 'reader@crash.example');
    await t
      .request()
      .patch('/notification_schedule')
      .set(bearer(reader.jwt))
      .send({ email_mode: 'hourly_digest' })
      .expect(200);
  }, 90_000);

  afterAll(async () => {
    sink?.releaseReplies();
    await worker?.kill();
    await t?.close();
    await sink?.close();
    await build?.remove();
  });

  const digests = () =>
    sink.messages.filter((m) => m.to.includes(reader.login) && m.subject.includes('digest'));
  const sentAt = async () =>
    (
      await t
        .get(DataSource)
        .query<Array<{ sent_at: Date | null }>>(
          'SELECT sent_at FROM pending_email WHERE account_id = $1',
          [reader.accountId],
        )
    )[0].sent_at;

  it('sends the batch again from a new worker process, and marks it then', async () => {
    await t.get(DataSource).query(
      `INSERT INTO pending_email (account_id, category_key, subject, text, created_at)
         VALUES ($1, 'billing', 'Invoice 42', 'Details of invoice 42', now())`,
      [reader.accountId],
    );
    sink.holdReplies = true;
    await t.get(JobQueue).enqueue(JobName.DigestSweep, {});
    await until(async () => digests().length >= 1, 'the first digest', 30_000);

    await worker!.kill();
    worker = undefined;
    const beforeRestart = digests().length;
    sink.releaseReplies();
    expect(await sentAt()).toBeNull();

    worker = await DeployableProcess.start(build.entry('worker'), t.config);
    await t.get(JobQueue).enqueue(JobName.DigestSweep, {});
    await until(async () => digests().length > beforeRestart, 'the digest sent again', 75_000);
    await until(async () => (await sentAt()) !== null, 'the mark', 10_000);
    expect(digests().every((m) => m.text.includes('Invoice 42'))).toBe(true);
  }, 120_000);
});
