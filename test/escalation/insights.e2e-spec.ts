import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FakeClock } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertingTeam, alertsProject } from '../support/alerting.js';
import { bearer, mintToken, type TestAccount } from '../support/identity.js';
import { ACKS, ALERTS, EVENTS, INSTANCES, LEDGER, NOW, type Who } from './insights-data-set.js';
import { rollupDrift } from './insights-reference.js';

type Body = Record<string, unknown>;

const NOTHING = {
  totals: { alerts: 0, firing_now: 0, acked_share: 0 },
  mtta: { median_seconds: null, p90_seconds: null },
  volume: [],
  top_noisy: [],
  escalations: {
    opened: 0,
    exhausted: 0,
    repeat_rate: 0,
    acks_by_channel: { in_app: 0, email: 0, phone: 0 },
  },
  on_call_load: [],
};

describe('alert insights', () => {
  let t: MailingTestApp;
  let db: DataSource;
  let owner: TestAccount;
  let developer: TestAccount;
  let viewer: TestAccount;
  let stranger: TestAccount;
  /** the hand-built data set */
  let projectId: string;
  /** the same organization's other project, with data that must never count */
  let otherProjectId: string;
  let bareProjectId: string;
  let ghostId: string;
  const alertIds: Record<string, string> = {};
  const accounts: Record<Who, string | null> = { owner: '', dev: '', ghost: '', NOC: null };

  const insights = (project: string, query = '', token = owner.jwt) =>
    t.request().get(`/projects/${project}/alerts/insights${query}`).set(bearer(token));
  const data = async (project: string, query = '') =>
    (await insights(project, query).expect(200)).body.data as Body;

  const alert = async (
    project: string,
    [key, alertname, severity, startsAt, status]: (typeof ALERTS)[number],
  ) => {
    const labels: Record<string, string> = alertname ? { alertname, severity } : { severity };
    const [{ id }] = await db.query<Array<{ id: string }>>(
      `INSERT INTO alert (project_id, fingerprint, status, severity, labels, starts_at,
                          last_received_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6, $6, $6) RETURNING id`,
      [project, key, status, severity, labels, startsAt],
    );
    alertIds[key] = id;
  };
  const ack = ([key, channel, at, who]: (typeof ACKS)[number]) =>
    db.query(
      `INSERT INTO alert_acknowledgement (alert_id, channel, account_id, contact_label, created_at)
       VALUES ($1, $2, $3, $4, $5)`,
      [alertIds[key], channel, accounts[who], who === 'NOC' ? who : null, at],
    );
  const event = (project: string, [key, kind, at]: (typeof EVENTS)[number]) =>
    db.query(
      `INSERT INTO alert_event (alert_id, project_id, kind, created_at) VALUES ($1, $2, $3, $4)`,
      [alertIds[key], project, kind, at],
    );
  const instance = (
    project: string,
    [key, state, openedAt, exhaustedAt, repeats]: (typeof INSTANCES)[number],
  ) =>
    db.query(
      `INSERT INTO escalation_instance (project_id, alert_id, chain_snapshot, state, repeat_count,
                                        opened_at, exhausted_at, updated_at)
       VALUES ($1, $2, '{}', $3, $4, $5, $6, $5)`,
      [project, alertIds[key], state, repeats, openedAt, exhaustedAt],
    );
  const ledger = (project: string, [who, action, channel, at]: (typeof LEDGER)[number]) =>
    db.query(
      `INSERT INTO escalation_ledger (project_id, account_id, contact_label, action, channel, created_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [project, accounts[who], who === 'NOC' ? who : null, action, channel, at],
    );

  beforeAll(async () => {
    t = await createMailingApiTestApp({ clock: new FakeClock(NOW) });
    db = t.get(DataSource);
    ({ owner, developer, viewer, stranger, projectId, otherProjectId, bareProjectId } =
      await alertingTeam(t, 'Insights Org'));
    [{ id: ghostId }] = await db.query<Array<{ id: string }>>(
      `INSERT INTO account (login, login_key, name, email_verified_at)
       VALUES ('ghost@example.com', 'ghost@example.com', 'Ghost', now())
       RETURNING id`,
    );
    Object.assign(accounts, { owner: owner.accountId, dev: developer.accountId, ghost: ghostId });

    for (const row of ALERTS) await alert(projectId, row);
    for (const row of ACKS) await ack(row);
    for (const row of EVENTS) await event(projectId, row);
    for (const row of INSTANCES) await instance(projectId, row);
    for (const row of LEDGER) await ledger(projectId, row);
    // The ghost's ledger rows outlive it.
    await db.query('DELETE FROM account WHERE id = $1', [ghostId]);

    // The other project: recent and busy, none of it may count above.
    const other = otherProjectId;
    await alert(other, ['o1', 'DiskFull', 'critical', '2026-03-10T11:00:00Z', 'firing']);
    await alert(other, ['o2', 'Other', 'info', '2026-03-10T11:30:00Z', 'firing']);
    await ack(['o1', 'email', '2026-03-10T11:00:09Z', 'owner']);
    await event(other, ['o1', 'fired', '2026-03-10T11:00:00Z']);
    await event(other, ['o1', 'refired', '2026-03-10T11:10:00Z']);
    await event(other, ['o2', 'fired', '2026-03-10T11:30:00Z']);
    await instance(other, ['o1', 'exhausted', '2026-03-10T11:00:01Z', '2026-03-10T11:20:00Z', 4]);
    await ledger(other, ['owner', 'notified', 'in_app', '2026-03-10T11:00:02Z']);
    await ledger(other, ['owner', 'acked', 'email', '2026-03-10T11:00:09Z']);
  });

  afterAll(async () => {
    await t.close();
  });

  it('answers every figure of the last 7 days (the default window)', async () => {
    const expected = {
      totals: {
        // a1 a2 a3 a4 a5 a10 (a5 starts at the first instant of the window; a6 a second before)
        alerts: 6,
        // a1 a6 a8 a9, whatever their age
        firing_now: 4,
        // acknowledged: a1 a2 a3 a5 a10 → 5 / 6 = 0.83333…
        acked_share: 0.8333,
      },
      // samples, sorted: 0 (a10) 30 (a3) 60 (a1) 120 (a2) 600 (a5); n = 5
      // median: rank 0.5 × (5 − 1) = 2 → 60
      // p90: rank 0.9 × (5 − 1) = 3.6 → 120 + 0.6 × (600 − 120) = 408
      mtta: { median_seconds: 60, p90_seconds: 408 },
      volume: [
        { date: '2026-03-03', severities: { high: 1 } }, // a5
        { date: '2026-03-05', severities: { info: 1 } }, // a4
        { date: '2026-03-08', severities: { high: 1 } }, // a10
        { date: '2026-03-09', severities: { critical: 1, warning: 1 } }, // a3, a2 (23:30 UTC)
        { date: '2026-03-10', severities: { critical: 1 } }, // a1
      ],
      top_noisy: [
        // a1 fired, a2 fired and refired, a10 refired (its fired event is older)
        { alertname: 'DiskFull', occurrences: 4 },
        // a3 fired and refired twice, a4 fired; the tie goes by name
        { alertname: 'HighCpu', occurrences: 4 },
        { alertname: '(unknown)', occurrences: 1 }, // a5
      ],
      escalations: {
        // a1 a2 a3 a4 a5
        opened: 5,
        // a2 (exhausted, then acknowledged) and a3
        exhausted: 2,
        // a2 a3 repeated: 2 / 5
        repeat_rate: 0.4,
        // owner in_app; developer email and sms (a phone acknowledgement); contact phone
        acks_by_channel: { in_app: 1, email: 1, phone: 2 },
      },
      on_call_load: [
        // 2 + 1 + 2 = 5
        { account_id: developer.accountId, name: 'dev', notified: 2, called: 1, acked: 2 },
        // 2 + 1 + 1 = 4
        { account_id: owner.accountId, name: 'owner', notified: 2, called: 1, acked: 1 },
        // deleted: no name; 2 + 1 + 0 = 3
        { account_id: ghostId, name: null, notified: 2, called: 1, acked: 0 },
      ],
    };
    const res = await insights(projectId).expect(200);
    expect(res.body.metadata).toMatchObject({
      organization_id: owner.organizationId,
      project_id: projectId,
    });
    expect(res.body.data).toEqual(expected);
    expect(await data(projectId, '?days=7')).toEqual(expected);
  });

  it('answers the last 30 days', async () => {
    expect(await data(projectId, '?days=30')).toEqual({
      // adds a6 and a7; acknowledged adds a6: 6 / 8
      totals: { alerts: 8, firing_now: 4, acked_share: 0.75 },
      // samples: 0 30 60 120 600 1000; n = 6
      // median: rank 0.5 × 5 = 2.5 → 60 + 0.5 × (120 − 60) = 90
      // p90: rank 0.9 × 5 = 4.5 → 600 + 0.5 × (1000 − 600) = 800
      mtta: { median_seconds: 90, p90_seconds: 800 },
      volume: [
        { date: '2026-02-20', severities: { high: 1 } }, // a7
        { date: '2026-03-03', severities: { high: 1, warning: 1 } }, // a5, a6
        { date: '2026-03-05', severities: { info: 1 } },
        { date: '2026-03-08', severities: { high: 1 } },
        { date: '2026-03-09', severities: { critical: 1, warning: 1 } },
        { date: '2026-03-10', severities: { critical: 1 } },
      ],
      top_noisy: [
        { alertname: 'DiskFull', occurrences: 5 }, // adds a10 fired
        { alertname: 'HighCpu', occurrences: 4 },
        { alertname: 'Latency', occurrences: 2 }, // a6, a7 fired
        { alertname: '(unknown)', occurrences: 1 },
      ],
      escalations: {
        // adds a6: exhausted and repeated; 3 / 6
        opened: 6,
        exhausted: 3,
        repeat_rate: 0.5,
        // adds the ghost's phone acknowledgement
        acks_by_channel: { in_app: 1, email: 1, phone: 3 },
      },
      on_call_load: [
        // owner adds two e-mails: 4 + 1 + 1 = 6
        { account_id: owner.accountId, name: 'owner', notified: 4, called: 1, acked: 1 },
        { account_id: developer.accountId, name: 'dev', notified: 2, called: 1, acked: 2 },
        { account_id: ghostId, name: null, notified: 2, called: 1, acked: 1 },
      ],
    });
  });

  it('answers the last 90 days', async () => {
    expect(await data(projectId, '?days=90')).toEqual({
      // adds a8 (a9 is older than 90 days); acknowledged adds a8: 7 / 9 = 0.7777…
      totals: { alerts: 9, firing_now: 4, acked_share: 0.7778 },
      // samples: 0 30 45 60 120 600 1000; n = 7
      // median: rank 0.5 × 6 = 3 → 60
      // p90: rank 0.9 × 6 = 5.4 → 600 + 0.4 × (1000 − 600) = 760
      mtta: { median_seconds: 60, p90_seconds: 760 },
      volume: [
        { date: '2026-01-01', severities: { critical: 1 } }, // a8
        { date: '2026-02-20', severities: { high: 1 } },
        { date: '2026-03-03', severities: { high: 1, warning: 1 } },
        { date: '2026-03-05', severities: { info: 1 } },
        { date: '2026-03-08', severities: { high: 1 } },
        { date: '2026-03-09', severities: { critical: 1, warning: 1 } },
        { date: '2026-03-10', severities: { critical: 1 } },
      ],
      top_noisy: [
        { alertname: 'DiskFull', occurrences: 5 },
        { alertname: 'HighCpu', occurrences: 4 },
        { alertname: 'Latency', occurrences: 2 },
        // ties by name in byte order: "(" before "O"
        { alertname: '(unknown)', occurrences: 1 },
        { alertname: 'Old', occurrences: 1 }, // a8
      ],
      escalations: {
        // adds a8 (acknowledged, not repeated): 3 / 7 = 0.428571…
        opened: 7,
        exhausted: 3,
        repeat_rate: 0.4286,
        // adds the owner's e-mail acknowledgement
        acks_by_channel: { in_app: 1, email: 2, phone: 3 },
      },
      on_call_load: [
        // owner adds a page and an acknowledgement: 5 + 1 + 2 = 8
        { account_id: owner.accountId, name: 'owner', notified: 5, called: 1, acked: 2 },
        { account_id: developer.accountId, name: 'dev', notified: 2, called: 1, acked: 2 },
        { account_id: ghostId, name: null, notified: 2, called: 1, acked: 1 },
      ],
    });
  });

  it('reads whole days from rollups that agree with the raw rows of the data set', async () => {
    expect(await rollupDrift(db)).toEqual({});
    const [{ days }] = await db.query<Array<{ days: number }>>(
      'SELECT count(DISTINCT day)::int AS days FROM insights_alert_day WHERE project_id = $1',
      [projectId],
    );
    // 12-01 (a9), 01-01, 02-20, 03-03 (a5, a6), 03-05, 03-08, 03-09 (a2, a3), 03-10
    expect(days).toBe(8);
  });

  it('keeps to its own project: the other project counts only its own data', async () => {
    expect(await data(otherProjectId)).toEqual({
      totals: { alerts: 2, firing_now: 2, acked_share: 0.5 },
      mtta: { median_seconds: 9, p90_seconds: 9 },
      volume: [{ date: '2026-03-10', severities: { critical: 1, info: 1 } }],
      top_noisy: [
        { alertname: 'DiskFull', occurrences: 2 },
        { alertname: 'Other', occurrences: 1 },
      ],
      escalations: {
        opened: 1,
        exhausted: 1,
        repeat_rate: 1,
        acks_by_channel: { in_app: 0, email: 1, phone: 0 },
      },
      on_call_load: [
        { account_id: owner.accountId, name: 'owner', notified: 1, called: 0, acked: 1 },
      ],
    });
  });

  it('answers zeros, nulls and empty lists for a project without data', async () => {
    const empty = await alertsProject(t, owner, 'empty');
    for (const query of ['', '?days=30', '?days=90'])
      expect(await data(empty, query)).toEqual(NOTHING);
  });

  it('counts firing alerts of any age, while the window holds nothing else', async () => {
    const quiet = await alertsProject(t, owner, 'quiet');
    await alert(quiet, ['q1', 'Stale', 'critical', '2025-06-01T00:00:00Z', 'firing']);
    await ack(['q1', 'in_app', '2025-06-01T00:01:00Z', 'owner']);
    await event(quiet, ['q1', 'fired', '2025-06-01T00:00:00Z']);
    await instance(quiet, ['q1', 'exhausted', '2025-06-01T00:00:01Z', '2025-06-01T01:00:00Z', 1]);
    await ledger(quiet, ['owner', 'acked', 'in_app', '2025-06-01T00:01:00Z']);
    for (const query of ['', '?days=30', '?days=90'])
      expect(await data(quiet, query)).toEqual({
        ...NOTHING,
        totals: { alerts: 0, firing_now: 1, acked_share: 0 },
      });

    // An alert in the window that nobody acknowledged: a share of 0 and no MTTA.
    await alert(quiet, ['q2', null, 'info', '2026-03-09T00:00:00Z', 'resolved']);
    expect(await data(quiet)).toEqual({
      ...NOTHING,
      totals: { alerts: 1, firing_now: 1, acked_share: 0 },
      volume: [{ date: '2026-03-09', severities: { info: 1 } }],
    });
  });

  it('lists at most the ten noisiest alertnames', async () => {
    const noisy = await alertsProject(t, owner, 'noisy');
    // n01 fires 12 times, n02 11 times, … n12 once.
    for (let n = 1; n <= 12; n += 1) {
      const key = `n${String(n).padStart(2, '0')}`;
      await alert(noisy, [key, key, 'warning', '2026-03-10T00:00:00Z', 'resolved']);
      await db.query(
        `INSERT INTO alert_event (alert_id, project_id, kind, created_at)
         SELECT $1, $2, CASE WHEN i = 1 THEN 'fired' ELSE 'refired' END,
                '2026-03-10T00:00:00Z'::timestamptz + i * interval '1 minute'
           FROM generate_series(1, $3::int) AS i`,
        [alertIds[key], noisy, 13 - n],
      );
    }
    const { top_noisy } = await data(noisy);
    expect(top_noisy).toEqual(
      Array.from({ length: 10 }, (_, i) => ({
        alertname: `n${String(i + 1).padStart(2, '0')}`,
        occurrences: 12 - i,
      })),
    );
  });

  it('refuses a days value other than 7, 30 or 90 with invalid_days', async () => {
    for (const query of ['?days=14', '?days=0', '?days=1', '?days=', '?days=seven', '?days=7.0'])
      expect([query, (await insights(projectId, query)).body]).toEqual([
        query,
        expect.objectContaining({
          code: 'invalid_days',
          source_service: 'escalation',
          retryable: false,
        }),
      ]);
    expect((await insights(projectId, '?days=365')).status).toBe(422);
  });

  it('takes alerts/insights for itself: the alert route with an id still answers alerts', async () => {
    const shown = await t
      .request()
      .get(`/projects/${projectId}/alerts/${alertIds.a1}`)
      .set(bearer(owner.jwt))
      .expect(200);
    expect(shown.body.data).toMatchObject({ id: alertIds.a1, fingerprint: 'a1' });
    const res = await insights(projectId).expect(200);
    expect(Object.keys(res.body.data as Body)).toEqual([
      'totals',
      'mtta',
      'volume',
      'top_noisy',
      'escalations',
      'on_call_load',
    ]);
  });

  describe('access', () => {
    it('is a read: members with alerts read and tokens with alerts:read', async () => {
      await insights(projectId, '', viewer.jwt).expect(200);
      const read = await mintToken(t, owner.jwt, ['alerts:read']);
      await insights(projectId, '', read).expect(200);
      for (const scopes of [['alert_routes:*'], ['alert_events:read']]) {
        const token = await mintToken(t, owner.jwt, scopes);
        expect([scopes, (await insights(projectId, '', token).expect(403)).body.code]).toEqual([
          scopes,
          'insufficient_scope',
        ]);
      }
    });

    it('hides other organizations and needs the alerts capability', async () => {
      expect((await insights(projectId, '', stranger.jwt).expect(404)).body.code).toBe('not_found');
      expect((await insights(bareProjectId).expect(403)).body.code).toBe(
        'alerts_capability_not_enabled',
      );
      await t.request().get(`/projects/${projectId}/alerts/insights`).expect(401);
    });
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await t.request().get('/openapi.json').expect(200)).body as {
      paths: Record<
        string,
        Record<string, { tags: string[]; parameters: Array<Body>; responses: Record<string, Body> }>
      >;
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    const operation = doc.paths['/projects/{project_id}/alerts/insights'].get;
    expect(operation.tags).toContain('escalation');
    expect(Object.keys(operation.responses).sort()).toEqual([
      '200',
      // 400, 413, 415 and 503: the request contract's, as on every versioned route
      '400',
      '401',
      '403',
      '404',
      '413',
      '415',
      '422',
      '503',
    ]);
    expect(JSON.stringify(operation.responses['422'])).toContain('invalid_days');
    expect(operation.parameters).toContainEqual(
      expect.objectContaining({ name: 'days', in: 'query', required: false }),
    );
    const schema = doc.components.schemas.AlertInsights;
    expect(Object.keys(schema.properties)).toEqual(Object.keys(NOTHING));
  });
});
