import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, type TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { AlertBundleFlusher } from '../../libs/alerting/src/dispatch/alert-bundle-flusher.js';
import {
  createApiTestApp,
  createMailingApiTestApp,
  type MailingTestApp,
} from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import { bearer, createAccount, PASSWORD, type TestAccount } from '../support/identity.js';

type Body = Record<string, unknown>;

/** Long, so the scheduled flush stays out of the way of the flushes the tests run themselves. */
const SWEEP_MS = 600_000;

/** Storm control end to end: ingested payloads, escalation, acknowledgement, a worker restart. */
describe('storm control through ingest, escalation and a restart', () => {
  let t: MailingTestApp;
  let db: DataSource;

  const start = async (at: string) => {
    t = await createMailingApiTestApp({ config: { escalationSweepIntervalMs: SWEEP_MS } });
    t.clock.set(at);
    db = t.get(DataSource);
  };
  const api = (account: TestAccount, method: 'get' | 'post', path: string) =>
    t.request()[method](path).set(bearer(account.jwt));
  const mintIngestToken = async (account: TestAccount, project: string) =>
    (
      await api(account, 'post', `/projects/${project}/alert_ingest_tokens`)
        .send({ current_password: PASSWORD })
        .expect(201)
    ).body.data.token as string;
  const payload = (status: 'firing' | 'resolved', fingerprints: string[]) => ({
    version: '4',
    status,
    receiver: 'platform',
    alerts: fingerprints.map((fingerprint) => ({
      status,
      labels: { alertname: `Disk ${fingerprint}`, severity: 'critical' },
      annotations: { summary: `${fingerprint} is full` },
      startsAt: t.clock.now().toISOString(),
      endsAt: status === 'resolved' ? t.clock.now().toISOString() : '0001-01-01T00:00:00Z',
      fingerprint,
    })),
  });
  const ingest = (token: string, project: string, body: Body) =>
    t.request().post(`/projects/${project}/alerts`).set(bearer(token)).send(body).expect(200);
  const dispatched = async (project: string) =>
    (
      await db.query<Array<{ n: number }>>(
        'SELECT count(*)::int AS n FROM alert_dispatch d JOIN alert a ON a.id = d.alert_id WHERE a.project_id = $1',
        [project],
      )
    )[0].n;
  const alertIds = async (project: string) =>
    Object.fromEntries(
      (
        await db.query<Array<{ id: string; fingerprint: string }>>(
          'SELECT id, fingerprint FROM alert WHERE project_id = $1',
          [project],
        )
      ).map((r) => [r.fingerprint, r.id]),
    );
  const inApp = (account: TestAccount) =>
    db.query<Array<{ event_type: string; payload: Body }>>(
      `SELECT event_type, payload FROM notification
        WHERE account_id = $1 AND category_key = 'alert_escalation' ORDER BY created_at, id`,
      [account.accountId],
    );
  const flush = () => t.get(AlertBundleFlusher).flush();

  describe('a storm of 1,000 alerts', () => {
    let admin: TestAccount;
    beforeAll(async () => {
      await start('2026-06-02T08:00:00Z');
      admin = await createAccount(t, t.sink, 'only-admin@example.com', 'Storm Target Org');
    });
    afterAll(async () => {
      await t.close();
    });

    it('sends the only admin 2 e-mails and 2 in-app notifications with a 30 s window', async () => {
      const project = await alertsProject(t, admin, 'storm');
      await api(admin, 'post', `/projects/${project}/alert_routes`)
        .send({ name: 'everything', priority: 1, bundle_window_seconds: 30 })
        .expect(201);
      const token = await mintIngestToken(admin, project);
      const fingerprints = Array.from({ length: 1000 }, (_, i) => `storm-${i}`);
      const mailsBefore = t.sink.messages.length;

      const res = await ingest(token, project, payload('firing', fingerprints));
      expect(res.body.data).toEqual({ processed: 1000, errors: [] });
      await eventually(async () => (await dispatched(project)) === 1000, 'the dispatch');
      t.clock.advance({ seconds: 30 });
      await flush();

      const notifications = await inApp(admin);
      expect(notifications.map((n) => n.event_type)).toEqual(['alert_firing', 'alert_bundle']);
      expect(notifications[1].payload).toMatchObject({ count: 999 });
      expect(notifications[1].payload.alerts).toHaveLength(999);
      await eventually(
        async () =>
          (
            await db.query<unknown[]>(
              `SELECT 1 FROM notification_delivery nd JOIN delivery d ON d.id = nd.id
                 JOIN notification n ON n.id = nd.notification_id
                WHERE nd.account_id = $1 AND d.channel = 'email' AND d.status = 'sent'
                  AND n.category_key = 'alert_escalation'`,
              [admin.accountId],
            )
          ).length === 2,
        'both e-mails sent',
      );
      // The security notice of the minted token is not an alert's.
      const mails = t.sink.messages
        .slice(mailsBefore)
        .filter((m) => m.to.includes('only-admin@example.com'))
        .filter((m) => m.subject !== 'An API token was created');
      expect(mails.map((m) => m.subject)).toHaveLength(2);
      expect(mails.some((m) => m.subject === '999 more alerts on route everything')).toBe(true);
      expect(
        (
          await db.query<unknown[]>(
            `SELECT 1 FROM notification_delivery nd JOIN delivery d ON d.id = nd.id
               JOIN notification n ON n.id = nd.notification_id
              WHERE nd.account_id = $1 AND d.channel = 'email' AND n.category_key = 'alert_escalation'`,
            [admin.accountId],
          )
        ).length,
      ).toBe(2);
    });
  });

  describe('escalation and acknowledgement of a bundle', () => {
    let owner: TestAccount;
    beforeAll(async () => {
      await start('2026-06-03T08:00:00Z');
      owner = await createAccount(t, t.sink, 'bundle-owner@example.com', 'Bundle Ack Org');
    });
    afterAll(async () => {
      await t.close();
    });

    it("runs one escalation for the bundle; acknowledging its first alert acknowledges the bundle's", async () => {
      const project = await alertsProject(t, owner, 'ack');
      const chain = await api(owner, 'post', `/projects/${project}/escalation_chains`)
        .send({ name: 'page owner' })
        .expect(201);
      await api(
        owner,
        'post',
        `/projects/${project}/escalation_chains/${chain.body.data.id}/escalation_steps`,
      )
        .send({ target_type: 'member', target_member_id: owner.accountId, channels: ['in_app'] })
        .expect(201);
      await api(owner, 'post', `/projects/${project}/alert_routes`)
        .send({
          name: 'paged',
          priority: 1,
          escalation_chain_id: chain.body.data.id,
          bundle_window_seconds: 60,
        })
        .expect(201);
      const token = await mintIngestToken(owner, project);
      await ingest(token, project, payload('firing', ['lead']));
      await eventually(async () => (await dispatched(project)) === 1, 'the first dispatch');
      t.clock.advance({ seconds: 5 });
      await ingest(token, project, payload('firing', ['joined-1', 'joined-2']));
      await eventually(async () => (await dispatched(project)) === 3, 'the second dispatch');
      const ids = await alertIds(project);

      const instances = await db.query<Array<{ alert_id: string }>>(
        `SELECT alert_id FROM escalation_instance i JOIN alert a ON a.id = i.alert_id
          WHERE a.project_id = $1`,
        [project],
      );
      expect(instances).toEqual([{ alert_id: ids.lead }]);

      // A joined alert is acknowledged on its own, as the spec has it: the lead stays open.
      const single = await api(owner, 'post', `/projects/${project}/alerts/${ids['joined-2']}/ack`)
        .send({})
        .expect(200);
      expect(single.body.data).toMatchObject({ acknowledged: true, acknowledgement_count: 1 });
      const show = async (id: string) =>
        (await api(owner, 'get', `/projects/${project}/alerts/${id}`).expect(200)).body
          .data as Body;
      expect(await show(ids.lead)).toMatchObject({ acknowledged: false });

      await api(owner, 'post', `/projects/${project}/alerts/${ids.lead}/ack`).send({}).expect(200);
      const by = { id: owner.accountId, name: expect.any(String) };
      expect(await show(ids.lead)).toMatchObject({ acknowledged: true, acknowledged_by: by });
      expect(await show(ids['joined-1'])).toMatchObject({
        acknowledged: true,
        acknowledged_by: by,
        acknowledgement_count: 1,
      });
      // Already acknowledged by the same account in-app: not counted twice.
      expect(await show(ids['joined-2'])).toMatchObject({ acknowledgement_count: 1 });
      const [{ state }] = await db.query<Array<{ state: string }>>(
        'SELECT state FROM escalation_instance WHERE alert_id = $1',
        [ids.lead],
      );
      expect(state).toBe('acknowledged');
    });
  });

  describe('a worker restart', () => {
    /** Holds the database, so the worker can stop and start again around it. */
    let host: TestApp;
    afterAll(async () => {
      await t.close();
      await host.close();
    });

    it('flushes, after the restart, the bundle the worker before it opened', async () => {
      host = await createApiTestApp({ config: { escalationSweepIntervalMs: SWEEP_MS } });
      host.clock.set('2026-06-04T08:00:00Z');
      const worker = () =>
        createMailingApiTestApp({
          shareWith: host,
          config: { escalationSweepIntervalMs: SWEEP_MS },
        });
      t = await worker();
      db = t.get(DataSource);
      const owner = await createAccount(t, t.sink, 'restart-owner@example.com', 'Restart Org');
      const project = await alertsProject(t, owner, 'restart');
      await api(owner, 'post', `/projects/${project}/alert_routes`)
        .send({ name: 'restarted', priority: 1, bundle_window_seconds: 30 })
        .expect(201);
      const token = await mintIngestToken(owner, project);
      await ingest(token, project, payload('firing', ['before-1']));
      await eventually(async () => (await dispatched(project)) === 1, 'the first dispatch');
      t.clock.advance({ seconds: 1 });
      await ingest(token, project, payload('firing', ['before-2', 'before-3']));
      await eventually(async () => (await dispatched(project)) === 3, 'the second dispatch');
      expect((await inApp(owner)).map((n) => n.event_type)).toEqual(['alert_firing']);
      await t.close();

      t = await worker();
      db = t.get(DataSource);
      t.clock.advance({ seconds: 29 });
      await flush();
      const notifications = await inApp(owner);
      expect(notifications.map((n) => n.event_type)).toEqual(['alert_firing', 'alert_bundle']);
      expect(notifications[1].payload).toMatchObject({ count: 2 });
      await t.sink
        .mailbox('restart-owner@example.com')
        .expectMail('2 more alerts on route restarted');
    });
  });
});
