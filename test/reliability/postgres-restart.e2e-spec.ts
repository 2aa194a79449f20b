import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { migrate } from '@platform/database';
import { MIGRATIONS } from '@platform/schema';
import { PrivatePostgres, eventually } from '@platform/testing';
import { DataSource } from 'typeorm';
import { alertsProject } from '../support/alerting.js';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { bearer, createAccount } from '../support/identity.js';

/** Every answer of the load, in the order the requests were sent. */
interface Answer {
  sentAt: number;
  status: number;
  code?: string;
  retryable?: boolean;
}

/** A request that has no answer after this long counts as hanging (the conventions' 5 s). */
const ANSWER_WITHIN_MS = 5000;
/** Ingest must work again this long after PostgreSQL is back (the 10 s). */
const RECOVER_WITHIN_MS = 10_000;

/**
 * PostgreSQL restarted under ingest load, on a server of the test's own: while it is down,
 * ingest answers 503 `service_unavailable` with `retryable: true` (never a 500, never a hang),
 * and once it is back the same API process, not restarted, ingests again within 10 s.
 */
describe('PostgreSQL restart under ingest load', () => {
  let postgres: PrivatePostgres;
  let t: MailingTestApp;
  let ingestUrl: string;
  let token: string;

  beforeAll(async () => {
    postgres = await PrivatePostgres.start();
    const databaseUrl = postgres.url('platform');
    await migrate(databaseUrl, MIGRATIONS);
    t = await createMailingApiTestApp({ listen: true, config: { databaseUrl } });
    const admin = await createAccount(t, t.sink, 'ops@restart.example', 'Restart Org');
    const projectId = await alertsProject(t, admin);
    token = (
      await t
        .request()
        .post(`/projects/${projectId}/alert_ingest_tokens`)
        .set(bearer(admin.jwt))
        .expect(201)
    ).body.data.token as string;
    ingestUrl = `${t.baseUrl}/projects/${projectId}/alerts`;
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await postgres?.destroy();
  });

  async function ingest(n: number): Promise<Answer> {
    const sentAt = Date.now();
    const response = await fetch(ingestUrl, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        version: '4',
        status: 'firing',
        alerts: [
          {
            status: 'firing',
            fingerprint: `disk-${n % 50}`,
            labels: { alertname: 'DiskFull', severity: 'warning', instance: `host-${n % 50}` },
            annotations: { summary: `disk ${n}` },
            startsAt: '2026-03-10T07:00:00Z',
          },
        ],
      }),
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });
    const body = (await response.json()) as { code?: string; retryable?: boolean };
    return { sentAt, status: response.status, code: body.code, retryable: body.retryable };
  }

  it('answers 503 retryable while it is down and ingests again within 10 s of it being back', async () => {
    const answers: Answer[] = [];
    let stopAt = Infinity;
    let sent = 0;
    const client = async () => {
      while (Date.now() < stopAt) answers.push(await ingest(sent++));
    };
    const clients = Array.from({ length: 4 }, client);
    const waitFor = (predicate: () => boolean, what: string) =>
      eventually(predicate, { what, timeoutMs: 30_000, intervalMs: 20 });

    await waitFor(() => answers.filter((a) => a.status === 200).length >= 20, '20 ingests');
    await postgres.stop();
    const downAt = Date.now();
    await waitFor(
      () => answers.filter((a) => a.sentAt > downAt).length >= 20,
      '20 answers during the outage',
    );
    await postgres.start();
    const backAt = Date.now();
    stopAt = backAt + RECOVER_WITHIN_MS;
    await Promise.all(clients);
    expect(answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);

    const failures = answers.filter((a) => a.status !== 200);
    expect(failures.length).toBeGreaterThanOrEqual(20);
    for (const failure of failures) {
      expect(failure).toMatchObject({ status: 503, code: 'service_unavailable', retryable: true });
    }
    const lastFailure = Math.max(...failures.map((a) => a.sentAt));
    const afterRecovery = answers.filter((a) => a.sentAt > lastFailure);
    expect(afterRecovery.length).toBeGreaterThan(0);
    expect(afterRecovery.every((a) => a.status === 200)).toBe(true);
    expect(lastFailure).toBeLessThan(backAt + RECOVER_WITHIN_MS);

    // What was answered 200 was stored, once PostgreSQL is there to ask.
    const [{ count }] = await t
      .get(DataSource)
      .query<Array<{ count: string }>>('SELECT count(*) FROM alert');
    expect(Number(count)).toBe(50);
  }, 90_000);
});
