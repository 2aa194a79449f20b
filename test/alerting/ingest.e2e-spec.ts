import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { JobName, JobQueue, QueueName } from '@platform/queue';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject, createProject } from '../support/alerting.js';
import { bearer, createAccount, PASSWORD, type TestAccount } from '../support/identity.js';

type Row = Record<string, unknown>;

const ZERO = '0001-01-01T00:00:00Z';

/** One alert as Alertmanager sends it. */
const am = (fingerprint: string, overrides: Row = {}): Row => ({
  status: 'firing',
  labels: { alertname: 'HighLatency', severity: 'critical', service: 'api' },
  annotations: { summary: 'p99 above 1s' },
  startsAt: '2026-03-10T06:55:00Z',
  endsAt: ZERO,
  generatorURL: 'http://prometheus:9090/graph?g0.expr=latency',
  fingerprint,
  ...overrides,
});

const webhook = (alerts: unknown, status = 'firing'): Row => ({
  version: '4',
  groupKey: '{}:{alertname="HighLatency"}',
  truncatedAlerts: 0,
  status,
  receiver: 'platform-alerts',
  groupLabels: { alertname: 'HighLatency' },
  commonLabels: { alertname: 'HighLatency' },
  commonAnnotations: {},
  externalURL: 'http://alertmanager:9093',
  alerts,
});

describe('alert ingest', () => {
  let t: MailingTestApp;
  let db: DataSource;
  let escalations: Queue;
  let admin: TestAccount;
  let projectId: string;
  let token: string;

  const post = (
    body: unknown,
    headers: Record<string, string> = bearer(token),
    project = projectId,
  ) =>
    t
      .request()
      .post(`/projects/${project}/alerts`)
      .set(headers)
      .send(body as object);

  const alertRow = async (fingerprint: string, project = projectId): Promise<Row | undefined> =>
    (
      (await db.query(
        `SELECT id, status, severity, labels, annotations, starts_at, ends_at, generator_url,
                last_received_at, created_at, updated_at, route_id
           FROM alert WHERE project_id = $1 AND fingerprint = $2`,
        [project, fingerprint],
      )) as Row[]
    )[0];

  const alertCount = async (): Promise<number> =>
    Number(((await db.query('SELECT count(*) AS n FROM alert')) as Array<{ n: string }>)[0].n);

  const events = async (alertId: unknown): Promise<Row[]> =>
    db.query(
      `SELECT kind, details, created_at, project_id FROM alert_event
        WHERE alert_id = $1 ORDER BY created_at, kind`,
      [alertId],
    );

  /** The dispatch jobs waiting in the (paused) escalations queue, taken off it. */
  const takeDispatchJobs = async (): Promise<Row[]> => {
    const jobs = await escalations.getJobs(['wait', 'prioritized', 'delayed']);
    const found = jobs
      .filter((job) => job.name === String(JobName.AlertDispatch))
      .sort((a, b) => a.timestamp - b.timestamp || Number(a.id) - Number(b.id));
    for (const job of jobs) await job.remove();
    return found.map((job) => job.data as Row);
  };

  const mintIngestToken = async (project: string) =>
    (
      await t
        .request()
        .post(`/projects/${project}/alert_ingest_tokens`)
        .set(bearer(admin.jwt))
        // The tests move the clock past the session's reauthentication window.
        .send({ current_password: PASSWORD })
        .expect(201)
    ).body.data.token as string;

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    t.clock.set('2026-03-10T07:00:00Z');
    db = t.get(DataSource);
    // Jobs stay where ingest put them: the test reads them instead of running dispatch.
    escalations = t.get(JobQueue).queue(QueueName.Escalations);
    await escalations.pause();
    admin = await createAccount(t, t.sink, 'admin@example.com', 'Ops Org');
    projectId = await alertsProject(t, admin);
    token = await mintIngestToken(projectId);
  });

  beforeEach(async () => {
    await takeDispatchJobs();
  });

  afterAll(async () => {
    await t.close();
  });

  describe('per-alert failures', () => {
    it('processes the good alert and reports the bad one at its index (200)', async () => {
      const res = await post(
        webhook([am('fp-good'), am('fp-bad', { labels: { alertname: 'NoSeverity' } })]),
      ).expect(200);
      expect(res.body.metadata).toMatchObject({
        organization_id: admin.organizationId,
        project_id: projectId,
      });
      expect(res.body.data).toEqual({
        processed: 1,
        errors: [
          {
            index: 1,
            fingerprint: 'fp-bad',
            code: 'missing_severity',
            message: 'labels have no severity',
          },
        ],
      });
      expect(await alertRow('fp-good')).toMatchObject({ status: 'firing' });
      expect(await alertRow('fp-bad')).toBeUndefined();
    });

    it('names each kind of failure with its code while the rest are processed', async () => {
      const res = await post(
        webhook([
          'not an alert',
          am('fp-x1', { fingerprint: undefined }),
          am('fp-x2', { labels: { severity: 'page' } }),
          am('fp-x3', { startsAt: 'yesterday' }),
          am('fp-x4', { endsAt: '2026-02-30T00:00:00Z' }),
          am('fp-x5', { status: 'pending' }),
          am('fp-x6', { labels: { severity: 'info', count: 3 } }),
          am('fp-ok', { labels: { severity: 'info' } }),
        ]),
      ).expect(200);
      expect(res.body.data.processed).toBe(1);
      expect(
        (res.body.data.errors as Row[]).map((e) => [e.index, e.fingerprint ?? null, e.code]),
      ).toEqual([
        [0, null, 'invalid_alert'],
        [1, null, 'missing_fingerprint'],
        [2, 'fp-x2', 'unknown_severity'],
        [3, 'fp-x3', 'invalid_starts_at'],
        [4, 'fp-x4', 'invalid_ends_at'],
        [5, 'fp-x5', 'invalid_status'],
        [6, 'fp-x6', 'invalid_labels'],
      ]);
      for (const error of res.body.data.errors as Row[])
        expect(error.message).toEqual(expect.any(String));
      expect(await alertRow('fp-ok')).toMatchObject({ severity: 'info' });
      expect(await alertRow('fp-x2')).toBeUndefined();
    });

    it('answers 502 with the ingest envelope when no alert could be processed', async () => {
      const before = await alertCount();
      const res = await post(
        webhook([am('fp-a', { fingerprint: '' }), am('fp-b', { labels: { severity: 'LOUD' } })]),
      ).expect(502);
      expect(res.body).toEqual({
        code: 'nothing_processed',
        message: 'None of the 2 alerts could be processed',
        source_service: 'alerting',
        source_operation: 'alertIngest.ingest',
        retryable: false,
        request_id: res.headers['x-request-id'],
        details: {
          processed: 0,
          errors: [
            { index: 0, code: 'missing_fingerprint', message: 'alert has no fingerprint' },
            {
              index: 1,
              fingerprint: 'fp-b',
              code: 'unknown_severity',
              message: 'severity "LOUD" is not one of critical, high, warning, info',
            },
          ],
        },
        errors: [
          {
            code: 'missing_fingerprint',
            message: 'alerts[0]: alert has no fingerprint',
            status: 422,
            index: 0,
          },
          {
            code: 'unknown_severity',
            message: 'alerts[1]: severity "LOUD" is not one of critical, high, warning, info',
            status: 422,
            index: 1,
            fingerprint: 'fp-b',
          },
        ],
      });
      expect(await alertCount()).toBe(before);
      expect(await takeDispatchJobs()).toEqual([]);
    });
  });

  describe('malformed payloads', () => {
    it.each<[string, unknown]>([
      ['no alerts field', { version: '4', status: 'firing' }],
      ['an empty alerts array', webhook([])],
      ['alerts that is an object', webhook({ 0: am('fp-m') })],
      ['alerts that is a string', webhook('fp-m')],
      ['alerts that is null', webhook(null)],
      ['a body that is an array', [am('fp-m')]],
    ])('answer 422 malformed_payload in the ingest envelope for %s', async (_name, body) => {
      const before = await alertCount();
      const res = await post(body).expect(422);
      expect(res.body).toEqual({
        code: 'malformed_payload',
        message: 'The payload needs a non-empty alerts array',
        source_service: 'alerting',
        source_operation: 'alertIngest.ingest',
        retryable: false,
        request_id: res.headers['x-request-id'],
        errors: [
          {
            code: 'malformed_payload',
            message: 'The payload needs a non-empty alerts array',
            status: 422,
          },
        ],
      });
      expect(await alertCount()).toBe(before);
    });

    it('answers 422 malformed_payload for an empty body', async () => {
      const res = await t
        .request()
        .post(`/projects/${projectId}/alerts`)
        .set(bearer(token))
        .expect(422);
      expect(res.body.errors).toEqual([
        { code: 'malformed_payload', message: expect.any(String), status: 422 },
      ]);
    });

    it('answers 400 for a body that is not JSON at all', async () => {
      const res = await t
        .request()
        .post(`/projects/${projectId}/alerts`)
        .set(bearer(token))
        .set('Content-Type', 'application/json')
        .send('{"alerts": [');
      expect([res.status, res.body.code]).toEqual([400, 'bad_request']);
      expect(res.body.errors).toEqual([
        { code: 'bad_request', message: expect.any(String), status: 400 },
      ]);
    });

    it('refuses a caller without a valid token before looking at the body (401, not 400)', async () => {
      for (const headers of [{}, bearer('hq_ing_nonsense')]) {
        const res = await t
          .request()
          .post(`/projects/${projectId}/alerts`)
          .set(headers)
          .set('Content-Type', 'application/json')
          .send('{"alerts": [');
        expect([res.status, res.body.code]).toEqual([401, 'unauthorized']);
      }
    });
  });

  describe('transitions', () => {
    it('stores a first firing alert with a fired event and dispatches it', async () => {
      t.clock.set('2026-03-10T07:00:00Z');
      const res = await post(webhook([am('fp-life')])).expect(200);
      expect(res.body.data).toEqual({ processed: 1, errors: [] });
      const row = await alertRow('fp-life');
      expect(row).toEqual({
        id: expect.any(String),
        status: 'firing',
        severity: 'critical',
        labels: { alertname: 'HighLatency', severity: 'critical', service: 'api' },
        annotations: { summary: 'p99 above 1s' },
        starts_at: new Date('2026-03-10T06:55:00Z'),
        ends_at: null,
        generator_url: 'http://prometheus:9090/graph?g0.expr=latency',
        last_received_at: new Date('2026-03-10T07:00:00Z'),
        created_at: new Date('2026-03-10T07:00:00Z'),
        updated_at: new Date('2026-03-10T07:00:00Z'),
        route_id: null,
      });
      expect(await events(row!.id)).toEqual([
        {
          kind: 'fired',
          details: { severity: 'critical', starts_at: '2026-03-10T06:55:00+00:00' },
          created_at: new Date('2026-03-10T07:00:00Z'),
          project_id: projectId,
        },
      ]);
      expect(await takeDispatchJobs()).toEqual([{ projectId, fired: [row!.id], resolved: [] }]);
    });

    it('updates a redelivered firing alert without an event or a dispatch', async () => {
      const before = (await alertRow('fp-life'))!;
      t.clock.set('2026-03-10T07:05:00Z');
      await post(
        webhook([
          am('fp-life', {
            startsAt: '2026-03-10T07:04:00Z',
            labels: { alertname: 'HighLatency', severity: 'high', service: 'api' },
            annotations: { summary: 'p99 above 2s' },
          }),
        ]),
      ).expect(200);
      const row = (await alertRow('fp-life'))!;
      expect(row).toMatchObject({
        id: before.id,
        status: 'firing',
        severity: 'high',
        labels: { alertname: 'HighLatency', severity: 'high', service: 'api' },
        annotations: { summary: 'p99 above 2s' },
        starts_at: new Date('2026-03-10T06:55:00Z'),
        ends_at: null,
        last_received_at: new Date('2026-03-10T07:05:00Z'),
        created_at: new Date('2026-03-10T07:00:00Z'),
      });
      expect((await events(row.id)).map((e) => e.kind)).toEqual(['fired']);
      expect(await takeDispatchJobs()).toEqual([]);
    });

    it('resolves with ends_at from endsAt, a resolved event and a dispatch', async () => {
      t.clock.set('2026-03-10T07:10:00Z');
      await post(
        webhook(
          [am('fp-life', { status: 'resolved', endsAt: '2026-03-10T07:09:30Z' })],
          'resolved',
        ),
      ).expect(200);
      const row = (await alertRow('fp-life'))!;
      expect(row).toMatchObject({
        status: 'resolved',
        starts_at: new Date('2026-03-10T06:55:00Z'),
        ends_at: new Date('2026-03-10T07:09:30Z'),
        last_received_at: new Date('2026-03-10T07:10:00Z'),
      });
      const timeline = await events(row.id);
      expect(timeline.map((e) => e.kind)).toEqual(['fired', 'resolved']);
      expect(timeline[1]).toMatchObject({
        details: { ends_at: '2026-03-10T07:09:30+00:00' },
        created_at: new Date('2026-03-10T07:10:00Z'),
      });
      expect(await takeDispatchJobs()).toEqual([{ projectId, fired: [], resolved: [row.id] }]);
    });

    it('only updates a redelivered resolved alert', async () => {
      t.clock.set('2026-03-10T07:15:00Z');
      await post(
        webhook(
          [am('fp-life', { status: 'resolved', endsAt: '2026-03-10T07:14:00Z' })],
          'resolved',
        ),
      ).expect(200);
      const row = (await alertRow('fp-life'))!;
      expect(row).toMatchObject({
        status: 'resolved',
        ends_at: new Date('2026-03-10T07:09:30Z'),
        last_received_at: new Date('2026-03-10T07:15:00Z'),
      });
      expect((await events(row.id)).map((e) => e.kind)).toEqual(['fired', 'resolved']);
      expect(await takeDispatchJobs()).toEqual([]);
    });

    it('fires again after resolution: a recurrence with a refired event and a dispatch', async () => {
      t.clock.set('2026-03-10T08:00:00Z');
      await db.query(
        `UPDATE alert SET route_id = gen_random_uuid() WHERE project_id = $1 AND fingerprint = $2`,
        [projectId, 'fp-life'],
      );
      await post(webhook([am('fp-life', { startsAt: '2026-03-10T07:58:00Z' })])).expect(200);
      const row = (await alertRow('fp-life'))!;
      expect(row).toMatchObject({
        status: 'firing',
        starts_at: new Date('2026-03-10T07:58:00Z'),
        ends_at: null,
        route_id: null,
        last_received_at: new Date('2026-03-10T08:00:00Z'),
        created_at: new Date('2026-03-10T07:00:00Z'),
      });
      const timeline = await events(row.id);
      expect(timeline.map((e) => e.kind)).toEqual(['fired', 'resolved', 'refired']);
      expect(timeline[2].details).toEqual({
        severity: 'critical',
        starts_at: '2026-03-10T07:58:00+00:00',
      });
      expect(await takeDispatchJobs()).toEqual([{ projectId, fired: [row.id], resolved: [] }]);
    });

    it('resolves at the receipt time when endsAt is absent or zero', async () => {
      t.clock.set('2026-03-10T08:30:00Z');
      await post(webhook([am('fp-life', { status: 'resolved', endsAt: ZERO })])).expect(200);
      expect(await alertRow('fp-life')).toMatchObject({
        status: 'resolved',
        ends_at: new Date('2026-03-10T08:30:00Z'),
      });
      await post(webhook([am('fp-now')])).expect(200);
      await post(webhook([am('fp-now', { status: 'resolved', endsAt: undefined })])).expect(200);
      expect(await alertRow('fp-now')).toMatchObject({
        status: 'resolved',
        ends_at: new Date('2026-03-10T08:30:00Z'),
      });
    });

    it('stores a resolved alert never seen before as resolved, without event or dispatch', async () => {
      t.clock.set('2026-03-10T09:00:00Z');
      await post(
        webhook([am('fp-late', { status: 'resolved', endsAt: '2026-03-10T08:59:00Z' })]),
      ).expect(200);
      const row = (await alertRow('fp-late'))!;
      expect(row).toMatchObject({
        status: 'resolved',
        starts_at: new Date('2026-03-10T06:55:00Z'),
        ends_at: new Date('2026-03-10T08:59:00Z'),
      });
      expect(await events(row.id)).toEqual([]);
      expect(await takeDispatchJobs()).toEqual([]);
    });
  });

  describe('endsAt and startsAt', () => {
    it('stores the zero endsAt, an absent one and the provisional endsAt of a firing alert as null', async () => {
      await post(
        webhook([
          am('fp-zero', { endsAt: ZERO }),
          am('fp-absent', { endsAt: undefined }),
          am('fp-future', { endsAt: '2026-03-10T12:00:00Z' }),
        ]),
      ).expect(200);
      for (const fingerprint of ['fp-zero', 'fp-absent', 'fp-future']) {
        expect(await alertRow(fingerprint)).toMatchObject({ status: 'firing', ends_at: null });
      }
    });

    it('takes the receipt time for an alert without startsAt', async () => {
      t.clock.set('2026-03-10T09:30:00Z');
      await post(webhook([am('fp-nostart', { startsAt: undefined })])).expect(200);
      expect(await alertRow('fp-nostart')).toMatchObject({
        starts_at: new Date('2026-03-10T09:30:00Z'),
      });
    });

    it('keeps the alert status of the payload for an alert without its own', async () => {
      await post(webhook([am('fp-inherit')])).expect(200);
      await post(webhook([am('fp-inherit', { status: undefined })], 'resolved')).expect(200);
      expect(await alertRow('fp-inherit')).toMatchObject({ status: 'resolved' });
    });
  });

  describe('one payload', () => {
    it('lets the last of alerts sharing a fingerprint win', async () => {
      const res = await post(
        webhook([
          am('fp-dup', { labels: { severity: 'info' }, annotations: { summary: 'first' } }),
          am('fp-dup', { labels: { severity: 'warning' }, annotations: { summary: 'last' } }),
        ]),
      ).expect(200);
      expect(res.body.data).toEqual({ processed: 2, errors: [] });
      const row = (await alertRow('fp-dup'))!;
      expect(row).toMatchObject({ severity: 'warning', annotations: { summary: 'last' } });
      expect((await events(row.id)).map((e) => e.kind)).toEqual(['fired']);
    });

    it('enqueues one dispatch for a payload mixing new, resolved and unchanged alerts', async () => {
      t.clock.set('2026-03-10T10:00:00Z');
      await post(webhook([am('fp-m1'), am('fp-m2')])).expect(200);
      await takeDispatchJobs();
      t.clock.set('2026-03-10T10:05:00Z');
      await post(
        webhook([
          am('fp-m1'),
          am('fp-m2', { status: 'resolved', endsAt: '2026-03-10T10:04:00Z' }),
          am('fp-m3'),
          am('fp-m4', { status: 'resolved' }),
        ]),
      ).expect(200);
      const [m2, m3] = [(await alertRow('fp-m2'))!, (await alertRow('fp-m3'))!];
      expect(await takeDispatchJobs()).toEqual([{ projectId, fired: [m3.id], resolved: [m2.id] }]);
    });

    it('records one fired event for concurrent deliveries of the same new alert', async () => {
      const responses = await Promise.all(
        Array.from({ length: 8 }, () => post(webhook([am('fp-race'), am('fp-race-2')]))),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(8).fill(200));
      for (const fingerprint of ['fp-race', 'fp-race-2']) {
        const row = (await alertRow(fingerprint))!;
        expect((await events(row.id)).map((e) => e.kind)).toEqual(['fired']);
      }
      const jobs = await takeDispatchJobs();
      expect(jobs.flatMap((job) => job.fired as string[]).sort()).toEqual(
        [(await alertRow('fp-race'))!.id, (await alertRow('fp-race-2'))!.id].sort(),
      );
    });

    it('keeps alerts of different projects apart', async () => {
      const other = await alertsProject(t, admin, 'staging');
      await post(webhook([am('fp-life')]), bearer(admin.jwt), other).expect(200);
      expect(await alertRow('fp-life', other)).toMatchObject({ status: 'firing' });
      expect(await alertRow('fp-life')).toMatchObject({ status: 'resolved' });
    });
  });

  describe('search', () => {
    const search = async (q: string) =>
      (
        await t
          .request()
          .get(`/projects/${projectId}/alerts`)
          .query({ q })
          .set(bearer(admin.jwt))
          .expect(200)
      ).body as { metadata: Row; data: Row[] };

    const searchRow = async (fingerprint: string): Promise<Row> =>
      (
        (await db.query(
          `SELECT s.search_text, s.generation, st.generation AS project_generation
             FROM alert a
             JOIN alert_search s ON s.alert_id = a.id
             JOIN alert_search_state st ON st.project_id = a.project_id
            WHERE a.project_id = $1 AND a.fingerprint = $2`,
          [projectId, fingerprint],
        )) as Row[]
      )[0];

    it('finds a redelivered alert by its new summary and no longer by the old one', async () => {
      t.clock.set('2026-03-10T11:00:00Z');
      await post(
        webhook([am('fp-reworded', { annotations: { summary: 'first wording' } })]),
      ).expect(200);
      const first = await search('FIRST WORDING');
      expect(first.data.map((a) => a.fingerprint)).toEqual(['fp-reworded']);
      expect(first.metadata).toMatchObject({ count: 1, total: 1 });

      t.clock.set('2026-03-10T11:05:00Z');
      await post(
        webhook([am('fp-reworded', { annotations: { summary: 'second wording' } })]),
      ).expect(200);
      const second = await search('second wording');
      expect(second.data.map((a) => a.fingerprint)).toEqual(['fp-reworded']);
      expect(second.metadata).toMatchObject({ count: 1, total: 1 });
      const old = await search('first wording');
      expect(old.data).toEqual([]);
      expect(old.metadata).toMatchObject({ count: 0, total: 0 });
    });

    it('leaves the search row alone on redeliveries that keep the searched text', async () => {
      t.clock.set('2026-03-10T11:10:00Z');
      await post(webhook([am('fp-quiet', { annotations: { summary: 'quiet one' } })])).expect(200);
      const before = await searchRow('fp-quiet');
      expect(before.search_text).toBe('fp-quiet\u001fhighlatency\u001fquiet one');

      t.clock.set('2026-03-10T11:15:00Z');
      await post(
        webhook([
          am('fp-quiet', {
            labels: { alertname: 'HighLatency', severity: 'warning', service: 'db' },
            annotations: { summary: 'quiet one', description: 'other labels, same text' },
          }),
        ]),
      ).expect(200);
      expect(await searchRow('fp-quiet')).toEqual(before);

      t.clock.set('2026-03-10T11:20:00Z');
      await post(
        webhook([am('fp-quiet', { labels: { alertname: 'LoudNow', severity: 'warning' } })]),
      ).expect(200);
      const after = await searchRow('fp-quiet');
      expect(after.search_text).toBe('fp-quiet\u001floudnow\u001fp99 above 1s');
      expect(Number(after.generation)).toBeGreaterThan(Number(before.project_generation));
      expect((await search('loudnow')).data.map((a) => a.fingerprint)).toEqual(['fp-quiet']);
    });
  });

  describe('the alerts capability', () => {
    it('answers 403 alerts_capability_not_enabled for a project without it', async () => {
      const plain = await createProject(t, admin, 'no alerts');
      const res = await post(webhook([am('fp-cap')]), bearer(admin.jwt), plain);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        code: 'alerts_capability_not_enabled',
        request_id: res.headers['x-request-id'],
        errors: [{ code: 'alerts_capability_not_enabled', status: 403 }],
      });
    });

    it('answers 403 to an ingest token once the grant is revoked', async () => {
      const project = await alertsProject(t, admin, 'revoked');
      const ingestToken = await mintIngestToken(project);
      await post(webhook([am('fp-cap')]), bearer(ingestToken), project).expect(200);
      await t
        .request()
        .delete(`/organizations/${admin.organizationId}/projects/${project}/feature-grants/alerts`)
        .set(bearer(admin.jwt))
        .expect(204);
      for (const headers of [bearer(ingestToken), { 'X-Access-Token': ingestToken }]) {
        const res = await post(webhook([am('fp-cap-2')]), headers, project);
        expect([res.status, res.body.code]).toEqual([403, 'alerts_capability_not_enabled']);
      }
      expect(await alertRow('fp-cap-2', project)).toBeUndefined();
    });
  });
});
