import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '@platform/testing';
import { JobName, JobQueue } from '@platform/queue';
import { DataSource } from 'typeorm';
import {
  HEARTBEAT_SWEEP_SCHEDULER_ID,
  HeartbeatSweepProcessor,
} from '../../libs/alerting/src/heartbeats/heartbeat-sweep.processor.js';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { type AlertingTeam, alertingTeam } from '../support/alerting.js';
import { expectError } from '../support/clients/expect-error.js';
import { bearer, mintToken } from '../support/identity.js';

type Body = Record<string, unknown>;
interface Heartbeat extends Body {
  id: string;
  ping_url: string;
  status: string;
}

/** Long, so the scheduled sweep stays out of the way of the sweeps the tests run themselves. */
const SWEEP_MS = 60_000;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

describe('heartbeat monitors', () => {
  let t: MailingTestApp;
  let db: DataSource;
  let team: AlertingTeam;
  let projectId: string;
  let base: string;
  let sequence = 0;

  const api = (method: 'get' | 'post' | 'patch' | 'delete', path: string, credential?: string) =>
    t
      .request()
      [method](`${base}${path}`)
      .set(bearer(credential ?? team.owner.jwt));
  const create = async (body: Body = {}) =>
    (
      await api('post', '/heartbeats')
        .send({ name: `watchdog ${++sequence}`, interval_seconds: 300, ...body })
        .expect(201)
    ).body.data as Heartbeat;
  const show = async (id: string) =>
    (await api('get', `/heartbeats/${id}`).expect(200)).body.data as Heartbeat;
  /** The path of a ping URL, which the test app serves. */
  const pingPath = (url: string) => new URL(url).pathname;
  const ping = (heartbeat: { ping_url: string }, method: 'post' | 'get' = 'post') =>
    t.request()[method](pingPath(heartbeat.ping_url));
  const sweep = () => t.get(HeartbeatSweepProcessor).sweep();
  const alertOf = async (heartbeatId: string) =>
    (
      await db.query<Body[]>(
        `SELECT id, status, severity, labels, annotations, starts_at, ends_at FROM alert
          WHERE project_id = $1 AND fingerprint = $2`,
        [projectId, `heartbeat-${heartbeatId}`],
      )
    )[0];
  const instanceStates = async (alertId: unknown) =>
    (
      await db.query<Array<{ state: string }>>(
        'SELECT state FROM escalation_instance WHERE alert_id = $1',
        [alertId],
      )
    ).map((row) => row.state);

  beforeAll(async () => {
    // The dispatch outbox sweep on, as deployed: an alert whose dispatch job did not run (the
    // scheduled sweep on the worker may down a heartbeat at the same moment as the test's own)
    // is still routed and escalated.
    t = await createMailingApiTestApp({
      config: { escalationSweepIntervalMs: SWEEP_MS, alertDispatchSweepIntervalMs: 1000 },
    });
    t.clock.set('2026-05-04T10:00:00Z');
    db = t.get(DataSource);
    team = await alertingTeam(t, 'Heartbeat Org');
    projectId = team.projectId;
    base = `/projects/${projectId}`;
    // Every firing alert escalates to the owner in-app.
    const chain = await api('post', '/escalation_chains').send({ name: 'page owner' }).expect(201);
    await api('post', `/escalation_chains/${chain.body.data.id}/escalation_steps`)
      .send({ target_type: 'member', target_member_id: team.owner.accountId, channels: ['in_app'] })
      .expect(201);
    await api('post', '/alert_routes')
      .send({ name: 'all', priority: 1, escalation_chain_id: chain.body.data.id })
      .expect(201);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('schedules the sweep as a repeatable job', async () => {
    const jobs = t.get(JobQueue);
    const scheduler = await jobs
      .queue(jobs.queueOf(JobName.HeartbeatSweep))
      .getJobScheduler(HEARTBEAT_SWEEP_SCHEDULER_ID);
    expect(scheduler).toMatchObject({ name: JobName.HeartbeatSweep, every: SWEEP_MS });
  });

  describe('create, show, list', () => {
    it('answers 201 with the pending heartbeat and its secret ping URL', async () => {
      const res = await api('post', '/heartbeats')
        .send({
          name: '  Watchdog  ',
          interval_seconds: 60,
          grace_seconds: 30,
          labels: { team: 'sre' },
        })
        .expect(201);
      const heartbeat = res.body.data as Heartbeat;
      expect(heartbeat).toEqual({
        id: expect.stringMatching(new RegExp(`^${UUID}$`)),
        project_id: projectId,
        name: 'Watchdog',
        interval_seconds: 60,
        grace_seconds: 30,
        labels: { team: 'sre' },
        ping_url: expect.stringMatching(
          new RegExp(`^http://[^/]+/heartbeat_pings/${heartbeat.id}\\.[A-Za-z0-9_-]{43}$`),
        ),
        status: 'pending',
        last_ping_at: null,
        next_ping_due_at: null,
        created_at: t.clock.now().toISOString(),
        updated_at: t.clock.now().toISOString(),
      });
      expect(await show(heartbeat.id)).toEqual(heartbeat);
      const list = await api('get', '/heartbeats').expect(200);
      expect(list.body.data).toContainEqual(heartbeat);
      // The URL is derived, never stored.
      const [row] = await db.query<Body[]>('SELECT * FROM heartbeat WHERE id = $1', [heartbeat.id]);
      expect(JSON.stringify(row)).not.toContain(heartbeat.ping_url.split('.').pop());
    });

    it('defaults grace to 0 and labels to none', async () => {
      const heartbeat = await create({ interval_seconds: 45 });
      expect(heartbeat).toMatchObject({ interval_seconds: 45, grace_seconds: 0, labels: {} });
    });

    it.each<[string, Body, string]>([
      ['no name', { name: undefined }, 'name'],
      ['a blank name', { name: '   ' }, 'name'],
      ['an interval under 30 seconds', { interval_seconds: 29 }, 'interval_seconds'],
      ['an interval over 30 days', { interval_seconds: 2_592_001 }, 'interval_seconds'],
      ['a fractional interval', { interval_seconds: 60.5 }, 'interval_seconds'],
      ['a negative grace', { grace_seconds: -1 }, 'grace_seconds'],
      ['labels that are not strings', { labels: { team: 3 } }, 'labels'],
      ['a bad label name', { labels: { 'bad-name': 'x' } }, 'labels'],
    ])('refuses %s with 422 validation_failed', async (_name, body, field) => {
      const res = await api('post', '/heartbeats').send({
        name: 'bad',
        interval_seconds: 60,
        ...body,
      });
      expectError(res, 422, 'validation_failed', [field]);
    });
  });

  describe('pings, misses and recovery', () => {
    it('never fires while pending, before the first ping', async () => {
      const heartbeat = await create({ interval_seconds: 60 });
      t.clock.advance({ hours: 5 });
      await sweep();
      expect(await show(heartbeat.id)).toMatchObject({ status: 'pending' });
      expect(await alertOf(heartbeat.id)).toBeUndefined();
    });

    it('takes an unauthenticated POST or GET (204), and is up until interval plus grace', async () => {
      const heartbeat = await create({ interval_seconds: 120, grace_seconds: 30 });
      const res = await ping(heartbeat).expect(204);
      expect(res.text).toBe('');
      const pingedAt = t.clock.now();
      expect(await show(heartbeat.id)).toMatchObject({
        status: 'up',
        last_ping_at: pingedAt.toISOString(),
        next_ping_due_at: new Date(pingedAt.getTime() + 150_000).toISOString(),
      });
      const later = t.clock.advance({ seconds: 100 });
      await ping(heartbeat, 'get').expect(204);
      expect(await show(heartbeat.id)).toMatchObject({
        status: 'up',
        last_ping_at: later.toISOString(),
        next_ping_due_at: new Date(later.getTime() + 150_000).toISOString(),
      });
    });

    it('fires a real alert when interval plus grace pass, and resolves it on the next ping', async () => {
      const heartbeat = await create({
        name: 'nightly-backup',
        interval_seconds: 300,
        grace_seconds: 60,
        labels: { team: 'storage' },
      });
      await ping(heartbeat).expect(204);
      const dueAt = new Date(t.clock.now().getTime() + 360_000);

      t.clock.advance({ seconds: 359 });
      await sweep();
      expect(await show(heartbeat.id)).toMatchObject({ status: 'up' });
      expect(await alertOf(heartbeat.id)).toBeUndefined();

      t.clock.advance({ seconds: 1 });
      expect(await sweep()).toBeGreaterThanOrEqual(1);
      expect(await show(heartbeat.id)).toMatchObject({ status: 'down' });
      const alert = (await alertOf(heartbeat.id))!;
      expect(alert).toEqual({
        id: expect.any(String),
        status: 'firing',
        severity: 'critical',
        labels: { team: 'storage', alertname: 'nightly-backup', severity: 'critical' },
        annotations: { summary: 'Heartbeat "nightly-backup" missed: no ping for 360 seconds' },
        starts_at: dueAt,
        ends_at: null,
      });
      // Through the route to its escalation chain, like any ingested alert. The chain's one step
      // is due at once and exhausts the escalation right after it pages, so the instance is
      // waited for in either state: polling for 'active' alone could look only after it ended.
      await eventually(
        async () => (await instanceStates(alert.id)).length > 0,
        'the escalation of the missed heartbeat',
      );
      expect(['active', 'exhausted']).toContain((await instanceStates(alert.id))[0]);
      expect(await instanceStates(alert.id)).toHaveLength(1);
      // A second sweep finds nothing new to fire.
      await sweep();
      expect(
        await db.query(
          `SELECT kind FROM alert_event WHERE alert_id = $1 AND kind IN ('fired', 'refired')`,
          [alert.id],
        ),
      ).toEqual([{ kind: 'fired' }]);

      const pingedAt = t.clock.advance({ seconds: 42 });
      await ping(heartbeat).expect(204);
      expect(await show(heartbeat.id)).toMatchObject({
        status: 'up',
        last_ping_at: pingedAt.toISOString(),
      });
      expect(await alertOf(heartbeat.id)).toMatchObject({
        status: 'resolved',
        ends_at: pingedAt,
      });
      await eventually(
        async () => (await instanceStates(alert.id)).join() === 'resolved',
        'the escalation to end with the alert',
      );
    });

    it('takes the severity from labels.severity when it is one of the four', async () => {
      const heartbeat = await create({ interval_seconds: 60, labels: { severity: 'warning' } });
      const odd = await create({ interval_seconds: 60, labels: { severity: 'page' } });
      await ping(heartbeat).expect(204);
      await ping(odd).expect(204);
      t.clock.advance({ seconds: 61 });
      await sweep();
      expect(await alertOf(heartbeat.id)).toMatchObject({
        severity: 'warning',
        labels: { alertname: heartbeat.name, severity: 'warning' },
      });
      expect(await alertOf(odd.id)).toMatchObject({
        severity: 'critical',
        labels: { alertname: odd.name, severity: 'critical' },
      });
    });
  });

  describe('ping URLs', () => {
    it('answer 404 with the error envelope to unknown and malformed keys', async () => {
      const heartbeat = await create();
      const forged = `${heartbeat.id}.${'A'.repeat(43)}`;
      for (const key of [forged, 'nonsense', `${heartbeat.id}`, `x.${'A'.repeat(43)}`]) {
        expectError(await t.request().post(`/heartbeat_pings/${key}`), 404, 'not_found');
        expectError(await t.request().get(`/heartbeat_pings/${key}`), 404, 'not_found');
      }
      expect(await show(heartbeat.id)).toMatchObject({ status: 'pending' });
    });

    it('rotate: the new URL works, the old one answers 404', async () => {
      const heartbeat = await create();
      const res = await api('post', `/heartbeats/${heartbeat.id}/rotate_ping_url`).expect(200);
      const rotated = res.body.data as Heartbeat;
      expect(rotated.ping_url).not.toBe(heartbeat.ping_url);
      expect({ ...rotated, ping_url: heartbeat.ping_url }).toMatchObject({
        ...heartbeat,
        updated_at: t.clock.now().toISOString(),
      });
      expectError(await ping(heartbeat), 404, 'not_found');
      await ping(rotated).expect(204);
      expect(await show(heartbeat.id)).toMatchObject({ status: 'up', ping_url: rotated.ping_url });
    });

    it('answer 429 rate_limited past 60 pings a minute', async () => {
      const heartbeat = await create();
      t.clock.advance({ minutes: 2 });
      for (let i = 0; i < 60; i += 1) await ping(heartbeat).expect(204);
      const refused = await ping(heartbeat);
      expectError(refused, 429, 'rate_limited');
      expect(refused.headers['retry-after']).toBe('60');
      t.clock.advance({ seconds: 61 });
      await ping(heartbeat).expect(204);
    });

    it('answer 403 alerts_capability_not_enabled once the project lost the capability', async () => {
      const project = team.otherProjectId;
      const res = await t
        .request()
        .post(`/projects/${project}/heartbeats`)
        .set(bearer(team.owner.jwt))
        .send({ name: 'staging', interval_seconds: 60 })
        .expect(201);
      await t
        .request()
        .delete(
          `/organizations/${team.owner.organizationId}/projects/${project}/feature-grants/alerts`,
        )
        .set(bearer(team.owner.jwt))
        .expect(204);
      expectError(await ping(res.body.data as Heartbeat), 403, 'alerts_capability_not_enabled');
    });
  });

  describe('PATCH and DELETE', () => {
    it('PATCH changes only the fields it sends and moves the deadline', async () => {
      const heartbeat = await create({ interval_seconds: 60, labels: { team: 'a' } });
      await ping(heartbeat).expect(204);
      const pingedAt = t.clock.now();
      t.clock.advance({ seconds: 5 });
      const res = await api('patch', `/heartbeats/${heartbeat.id}`)
        .send({ interval_seconds: 600, grace_seconds: 60 })
        .expect(200);
      expect(res.body.data).toEqual({
        ...heartbeat,
        interval_seconds: 600,
        grace_seconds: 60,
        status: 'up',
        last_ping_at: pingedAt.toISOString(),
        next_ping_due_at: new Date(pingedAt.getTime() + 660_000).toISOString(),
        updated_at: t.clock.now().toISOString(),
      });
      expectError(
        await api('patch', `/heartbeats/${heartbeat.id}`).send({ interval_seconds: 1 }),
        422,
        'validation_failed',
        ['interval_seconds'],
      );
    });

    it('PATCH of a down heartbeat carries name and labels over to its firing alert', async () => {
      const heartbeat = await create({ interval_seconds: 60 });
      await ping(heartbeat).expect(204);
      t.clock.advance({ seconds: 60 });
      await sweep();
      await api('patch', `/heartbeats/${heartbeat.id}`)
        .send({ name: 'renamed', labels: { severity: 'high', team: 'b' } })
        .expect(200);
      expect(await alertOf(heartbeat.id)).toMatchObject({
        status: 'firing',
        severity: 'high',
        labels: { alertname: 'renamed', severity: 'high', team: 'b' },
      });
    });

    it('DELETE answers 204, resolves a firing alert, and the ping URL then answers 404', async () => {
      const heartbeat = await create({ interval_seconds: 60 });
      await ping(heartbeat).expect(204);
      t.clock.advance({ seconds: 60 });
      await sweep();
      expect(await alertOf(heartbeat.id)).toMatchObject({ status: 'firing' });
      await api('delete', `/heartbeats/${heartbeat.id}`).expect(204);
      expect(await alertOf(heartbeat.id)).toMatchObject({
        status: 'resolved',
        ends_at: t.clock.now(),
      });
      expectError(await api('get', `/heartbeats/${heartbeat.id}`), 404, 'not_found');
      expectError(await api('delete', `/heartbeats/${heartbeat.id}`), 404, 'not_found');
      expectError(await ping(heartbeat), 404, 'not_found');
    });
  });

  describe('access', () => {
    let heartbeat: Heartbeat;

    beforeAll(async () => {
      heartbeat = await create();
    });

    it("answers 404 for another project's heartbeat on every item route", async () => {
      const other = `/projects/${team.otherProjectId}/heartbeats/${heartbeat.id}`;
      const owner = bearer(team.owner.jwt);
      // The capability was withdrawn above: use a third project with it.
      const third = (
        await t
          .request()
          .post(`/organizations/${team.owner.organizationId}/projects`)
          .set(owner)
          .send({ name: 'third' })
          .expect(201)
      ).body.data.id as string;
      await t
        .request()
        .put(`/organizations/${team.owner.organizationId}/projects/${third}/feature-grants/alerts`)
        .set(owner)
        .send({ approved_configuration: { allowed_kinds: null } })
        .expect(200);
      const path = other.replace(team.otherProjectId, third);
      expectError(await t.request().get(path).set(owner), 404, 'not_found');
      expectError(await t.request().patch(path).set(owner).send({ name: 'x' }), 404, 'not_found');
      expectError(await t.request().delete(path).set(owner), 404, 'not_found');
      expectError(await t.request().post(`${path}/rotate_ping_url`).set(owner), 404, 'not_found');
      const list = await t.request().get(`/projects/${third}/heartbeats`).set(owner).expect(200);
      expect(list.body.data).toEqual([]);
      expect(await show(heartbeat.id)).toMatchObject({ name: heartbeat.name });
    });

    it('lets a viewer read but not write, and a member without alerts delete not delete or rotate', async () => {
      await api('get', `/heartbeats/${heartbeat.id}`, team.viewer.jwt).expect(200);
      expectError(
        await api('post', '/heartbeats', team.viewer.jwt).send({ name: 'v', interval_seconds: 60 }),
        403,
        'forbidden',
      );
      await api('patch', `/heartbeats/${heartbeat.id}`, team.restricted.jwt)
        .send({ grace_seconds: 5 })
        .expect(200);
      expectError(
        await api('delete', `/heartbeats/${heartbeat.id}`, team.restricted.jwt),
        403,
        'forbidden',
      );
      expectError(
        await api('post', `/heartbeats/${heartbeat.id}/rotate_ping_url`, team.restricted.jwt),
        403,
        'forbidden',
      );
    });

    it('needs the heartbeats scope on a token: read reads, write writes, manage rotates', async () => {
      const reader = await mintToken(t, team.owner.jwt, ['heartbeats:read']);
      const writer = await mintToken(t, team.owner.jwt, ['heartbeats:write']);
      const alertsOnly = await mintToken(t, team.owner.jwt, ['alerts:*']);
      await api('get', '/heartbeats', reader).expect(200);
      expectError(
        await api('post', '/heartbeats', reader).send({ name: 'r', interval_seconds: 60 }),
        403,
        'insufficient_scope',
      );
      await api('post', '/heartbeats', writer)
        .send({ name: 'w', interval_seconds: 60 })
        .expect(201);
      expectError(
        await api('post', `/heartbeats/${heartbeat.id}/rotate_ping_url`, writer),
        403,
        'insufficient_scope',
      );
      expectError(await api('get', '/heartbeats', alertsOnly), 403, 'insufficient_scope');
    });

    it('answers 403 alerts_capability_not_enabled on a project without the capability', async () => {
      expectError(
        await t
          .request()
          .get(`/projects/${team.bareProjectId}/heartbeats`)
          .set(bearer(team.owner.jwt)),
        403,
        'alerts_capability_not_enabled',
      );
    });
  });
});
