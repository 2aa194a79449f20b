import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { EscalationEngine, EscalationJobs, pageKey } from '@platform/escalation';
import { NotifyService } from '@platform/notifications';
import { JobName } from '@platform/queue';
import { deleteRedisPrefix, FakeTwilio, eventually } from '@platform/testing';
import { DataSource } from 'typeorm';
import {
  CableSocket,
  cableUrl,
  type Frame,
  isType,
  NOTIFICATIONS_IDENTIFIER,
} from '../realtime/cable-socket.js';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import { addMember, bearer, createAccount, type TestAccount } from '../support/identity.js';
import { loseDelayedPlace } from '../support/queue.js';

interface StepSpec {
  delay?: number;
  target: 'member' | 'roster_on_call' | 'org_admins';
  member?: string;
  roster?: string;
  channels: string[];
}

interface PageRow {
  channel: string;
  account_id: string | null;
  generation: number;
  repeat_count: number;
  step_index: number;
  status: string;
}

const SWEEP_MS = 100;
/** Long enough for several sweeps and the jobs they would enqueue. */
const settle = () => new Promise((resolve) => setTimeout(resolve, SWEEP_MS * 6));

describe('escalation engine (real PostgreSQL, Redis, SMTP and a Twilio-shaped server)', () => {
  let t: MailingTestApp;
  let twilio: FakeTwilio;
  let db: DataSource;
  let owner: TestAccount;
  let alice: TestAccount;
  let bob: TestAccount;
  let carol: TestAccount;
  let projectId: string;
  let token: string;
  let sequence = 0;

  const BOB_PHONE = '+15550001002';

  /** Where an alert fires: a project, an admin of its organization and its ingest token. */
  interface Project {
    id: string;
    admin: TestAccount;
    token: string;
  }
  const home = (): Project => ({ id: projectId, admin: owner, token });

  const chain = async (
    steps: StepSpec[],
    options: { reEscalationAfter?: number; repeats?: number } = {},
    project = home(),
  ) => {
    const [{ id }] = await db.query<Array<{ id: string }>>(
      `INSERT INTO escalation_chain (project_id, name, re_escalation_after, repeats, created_at, updated_at)
       VALUES ($1, $2, $3, $4, now(), now()) RETURNING id`,
      [project.id, `chain ${++sequence}`, options.reEscalationAfter ?? null, options.repeats ?? 0],
    );
    for (const [position, step] of steps.entries()) {
      await db.query(
        `INSERT INTO escalation_step (chain_id, position, delay_seconds, target_type,
           target_member_id, target_roster_id, channels, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, now(), now())`,
        [
          id,
          position,
          step.delay ?? 0,
          step.target,
          step.member ?? null,
          step.roster ?? null,
          step.channels,
        ],
      );
    }
    return id;
  };

  /** A route matching `label=value` that opens `chainId` and notifies nobody in-app. */
  const route = async (value: string, chainId: string, project = home()) =>
    t
      .request()
      .post(`/projects/${project.id}/alert_routes`)
      .set(bearer(project.admin.jwt))
      .send({
        priority: ++sequence,
        matchers: [{ label: 'case', op: 'eq', value }],
        escalation_chain_id: chainId,
        in_app_target_type: 'none',
      })
      .expect(201);

  const ingest = (
    fingerprint: string,
    value: string,
    status: 'firing' | 'resolved',
    project = home(),
  ) =>
    t
      .request()
      .post(`/projects/${project.id}/alerts`)
      .set('X-Access-Token', project.token)
      .send({
        version: '4',
        status,
        receiver: 'platform',
        alerts: [
          {
            status,
            labels: { alertname: 'DbDown', severity: 'critical', case: value },
            annotations: { summary: `${fingerprint} is down` },
            startsAt: t.clock.now().toISOString(),
            endsAt: status === 'resolved' ? t.clock.now().toISOString() : '0001-01-01T00:00:00Z',
            fingerprint,
            generatorURL: 'http://prometheus.example/graph',
          },
        ],
      })
      .expect(200);

  /** Fires a new alert through a route with a chain of `steps`; answers the alert id. */
  const fire = async (
    steps: StepSpec[],
    options?: Parameters<typeof chain>[1],
    project = home(),
  ) => {
    const value = `case-${++sequence}`;
    await route(value, await chain(steps, options, project), project);
    const fingerprint = `fp-${value}`;
    await ingest(fingerprint, value, 'firing', project);
    const [{ id }] = await db.query<Array<{ id: string }>>(
      'SELECT id FROM alert WHERE project_id = $1 AND fingerprint = $2',
      [project.id, fingerprint],
    );
    return { alertId: id, fingerprint, value };
  };

  const pages = (alertId: string) =>
    db.query<PageRow[]>(
      `SELECT p.channel, p.account_id, p.generation, p.repeat_count, p.step_index, d.status
         FROM escalation_page p JOIN delivery d ON d.id = p.id WHERE p.alert_id = $1
        ORDER BY p.generation, p.repeat_count, p.step_index, p.channel, p.account_id`,
      [alertId],
    );
  const pagesAtLeast = (alertId: string, n: number) =>
    eventually(async () => {
      const rows = await pages(alertId);
      return rows.length >= n && rows;
    }, `${n} page(s) of alert ${alertId}`);
  /** Pages written and delivered (the delivery records the `paged` event at the clock's time). */
  const deliveredAtLeast = (alertId: string, n: number) =>
    eventually(async () => {
      const rows = await pages(alertId);
      return rows.length >= n && rows.every((p) => p.status === 'sent') && rows;
    }, `${n} delivered page(s) of alert ${alertId}`);
  const instance = async (alertId: string) =>
    (
      await db.query<
        Array<{
          id: string;
          state: string;
          generation: number;
          repeat_count: number;
        }>
      >(
        `SELECT id, state, generation, repeat_count FROM escalation_instance
          WHERE alert_id = $1 ORDER BY opened_at`,
        [alertId],
      )
    )[0];
  const inAppPagesOf = (account: TestAccount, alertId: string) =>
    db.query<Array<{ id: string }>>(
      `SELECT id FROM notification
        WHERE account_id = $1 AND category_key = 'alert_escalation' AND payload ->> 'alert_id' = $2`,
      [account.accountId, alertId],
    );
  const advance = (seconds: number) => t.clock.advance({ seconds });
  /** The account's own in-app rule for escalation pages. */
  const inAppRule = (account: TestAccount, enabled: boolean) =>
    t
      .request()
      .patch('/notification_preferences')
      .set(bearer(account.jwt))
      .send({ preferences: [{ category_key: 'alert_escalation', channel: 'in_app', enabled }] })
      .expect(200);
  /** Each page of the alert, by step: its account, outcome and how many notifications it wrote. */
  const pageOutcomes = (alertId: string) =>
    db.query<Array<Record<string, unknown>>>(
      `SELECT p.account_id, d.status, d.reason,
              (SELECT count(*)::int FROM notification n
                WHERE n.idempotency_key = 'escalation-page/' || p.id) AS notifications
         FROM escalation_page p JOIN delivery d ON d.id = p.id
        WHERE p.alert_id = $1 ORDER BY p.step_index`,
      [alertId],
    );
  const ack = (alertId: string, who = alice) =>
    t
      .request()
      .post(`/projects/${projectId}/alerts/${alertId}/ack`)
      .set(bearer(who.jwt))
      .expect(200);

  beforeAll(async () => {
    twilio = await FakeTwilio.start();
    t = await createMailingApiTestApp({
      listen: true,
      config: { phone: twilio.config(), escalationSweepIntervalMs: SWEEP_MS },
    });
    db = t.get(DataSource);
    owner = await createAccount(t, t.sink, 'owner@escalation.example', 'Escalation Org');
    alice = await addMember(t, t.sink, owner, 'alice@escalation.example', 'developer');
    bob = await addMember(t, t.sink, owner, 'bob@escalation.example', 'developer');
    carol = await addMember(t, t.sink, owner, 'carol@escalation.example', 'developer');
    await db.query(
      'UPDATE account SET phone_number = $2, phone_verified_at = now() WHERE id = $1',
      [bob.accountId, BOB_PHONE],
    );
    projectId = await alertsProject(t, owner);
    token = (
      await t
        .request()
        .post(`/projects/${projectId}/alert_ingest_tokens`)
        .set(bearer(owner.jwt))
        .expect(201)
    ).body.data.token as string;
  });

  // Every text and call a test caused must be one it expected.
  afterEach(() => twilio.expectNoUnexpected());

  afterAll(async () => {
    await t?.close();
    await twilio?.close();
  });

  it("pages in-app at once, then by phone after the second step's delay, then is exhausted", async () => {
    const { alertId } = await fire([
      { target: 'member', member: alice.accountId, channels: ['in_app'] },
      { delay: 300, target: 'member', member: bob.accountId, channels: ['phone'] },
    ]);
    await eventually(async () => (await inAppPagesOf(alice, alertId)).length === 1, 'in-app page');
    expect(await pages(alertId)).toEqual([
      expect.objectContaining({ channel: 'in_app', account_id: alice.accountId, step_index: 0 }),
    ]);

    advance(299);
    await settle();
    // Nothing on Bob's phone yet (the afterEach fails on anything not expected).
    twilio.expectNoUnexpected();
    expect((await instance(alertId)).state).toBe('active');
    // The position travels on the due row: the second step, due 300 s after the first.
    const [due] = await db.query<Array<{ step_index: number; after: number }>>(
      `SELECT d.step_index, extract(epoch FROM d.due_at - i.opened_at)::int AS after
         FROM escalation_due d JOIN escalation_instance i ON i.id = d.instance_id
        WHERE i.alert_id = $1`,
      [alertId],
    );
    expect(due).toEqual({ step_index: 1, after: 300 });

    advance(1);
    await twilio.device(BOB_PHONE).expectCall();
    const rows = await eventually(async () => {
      const all = await pages(alertId);
      return all.every((p) => p.status === 'sent') && all;
    }, 'both pages sent');
    expect(rows.map((p) => [p.step_index, p.channel, p.account_id])).toEqual([
      [0, 'in_app', alice.accountId],
      [1, 'phone', bob.accountId],
    ]);
    expect((await instance(alertId)).state).toBe('exhausted');
    const ledger = await db.query<Array<{ account_id: string; action: string; channel: string }>>(
      `SELECT account_id, action, channel FROM escalation_ledger WHERE alert_id = $1
        ORDER BY created_at, action`,
      [alertId],
    );
    expect(ledger).toEqual([
      { account_id: alice.accountId, action: 'notified', channel: 'in_app' },
      { account_id: bob.accountId, action: 'called', channel: 'phone' },
    ]);
    // Each page's delivery record was written with it: due when its step was, one attempt each.
    const records = await db.query<Array<Record<string, unknown>>>(
      `SELECT d.source, d.channel, d.status, d.attempts,
              extract(epoch FROM d.due_at - i.opened_at)::int AS due_after,
              d.provider_ref IS NOT NULL AS has_ref,
              (SELECT array_agg(a.outcome ORDER BY a.attempt) FROM delivery_attempt a
                WHERE a.delivery_id = d.id) AS attempts_made
         FROM escalation_page p JOIN delivery d ON d.id = p.id
         JOIN escalation_instance i ON i.id = p.instance_id
        WHERE p.alert_id = $1 ORDER BY p.step_index`,
      [alertId],
    );
    expect(records).toEqual([
      {
        source: 'escalation_page',
        channel: 'in_app',
        status: 'sent',
        attempts: 1,
        due_after: 0,
        has_ref: false,
        attempts_made: ['sent'],
      },
      {
        source: 'escalation_page',
        channel: 'phone',
        status: 'sent',
        attempts: 1,
        due_after: 300,
        has_ref: true,
        attempts_made: ['sent'],
      },
    ]);
  });

  /** A NotificationsChannel socket of `account`, subscribed. */
  const subscribed = async (account: TestAccount) => {
    const socket = await CableSocket.open(cableUrl(t.baseUrl, { token: account.jwt }));
    await socket.waitFor(isType('welcome'));
    socket.subscribe();
    await socket.waitFor(
      (f) => f.identifier === NOTIFICATIONS_IDENTIFIER && f.type === 'confirm_subscription',
    );
    return socket;
  };
  const pushAbout = (alertId: string) => (frame: Frame) =>
    (frame.message as { notification?: { payload?: { alert_id?: string } } } | undefined)
      ?.notification?.payload?.alert_id === alertId;
  /** How many in-app pages the delivery latency histogram of `/metrics` has observed. */
  const inAppLatencyCount = async () => {
    const metrics = await t.request().get('/metrics').expect(200);
    const found =
      /^delivery_latency_seconds_count\{channel="in_app",source="escalation"\} (\d+)$/m.exec(
        metrics.text,
      );
    return Number(found?.[1] ?? 0);
  };
  /** The calls of `spy` (notifyEach) that notified about escalation pages. */
  const pageNotifyCalls = (spy: { mock: { calls: unknown[][] } }) =>
    spy.mock.calls.filter(([requests]) =>
      (requests as Array<{ category: string }>).some((r) => r.category === 'alert_escalation'),
    );

  it("writes an in-app page's notification in the step's own statement and pushes it; no page job notifies", async () => {
    const socket = await subscribed(carol);
    const notifyEach = jest.spyOn(t.get(NotifyService), 'notifyEach');
    const observedBefore = await inAppLatencyCount();
    try {
      const { alertId } = await fire([
        { target: 'member', member: carol.accountId, channels: ['in_app'] },
      ]);
      const frame = await socket.waitFor(pushAbout(alertId));
      const [row] = await db.query<Array<Record<string, unknown>>>(
        `SELECT n.id, n.idempotency_key, n.payload, n.created_at, p.id AS page_id, p.instance_id,
                p.created_at AS page_created_at
           FROM notification n JOIN escalation_page p ON p.alert_id = $1::uuid
          WHERE n.account_id = $2 AND n.payload ->> 'alert_id' = $1::text`,
        [alertId, carol.accountId],
      );
      // Written by the statement that wrote the page, under the page's key.
      expect(row).toMatchObject({
        idempotency_key: pageKey(row.page_id as string),
        created_at: row.page_created_at,
        payload: {
          alert_id: alertId,
          escalation_instance_id: row.instance_id,
          step_index: 0,
          severity: 'critical',
          alertname: 'DbDown',
          summary: expect.stringMatching(/ is down$/),
          project_id: projectId,
        },
      });
      // The frame carries the notification as the notification center shows it.
      const center = await t.request().get('/notifications').set(bearer(carol.jwt)).expect(200);
      const unread = await t
        .request()
        .get('/notifications/unread_count')
        .set(bearer(carol.jwt))
        .expect(200);
      expect(frame.message).toEqual({
        event: 'created',
        notification: (center.body.data as Array<{ id: string }>).find((n) => n.id === row.id),
        unread_count: unread.body.data.unread_count,
      });
      const [page] = await deliveredAtLeast(alertId, 1);
      expect(page).toMatchObject({ channel: 'in_app', status: 'sent' });
      expect(
        await db.query(`SELECT action, channel FROM escalation_ledger WHERE alert_id = $1`, [
          alertId,
        ]),
      ).toEqual([{ action: 'notified', channel: 'in_app' }]);
      expect(pageNotifyCalls(notifyEach)).toEqual([]);
      // Due → pushed, on the latency histogram operators alert on.
      expect(await inAppLatencyCount()).toBe(observedBefore + 1);
    } finally {
      notifyEach.mockRestore();
      socket.close();
    }
  });

  it("leaves an in-app page the member's rules withhold to the page job, which records the rule; an admin's is mandatory", async () => {
    await inAppRule(carol, false);
    await inAppRule(owner, false);
    const notifyEach = jest.spyOn(t.get(NotifyService), 'notifyEach');
    try {
      const { alertId } = await fire([
        { target: 'member', member: carol.accountId, channels: ['in_app'] },
        { target: 'member', member: owner.accountId, channels: ['in_app'] },
      ]);
      const settled = await eventually(async () => {
        const rows = await pageOutcomes(alertId);
        return rows.length === 2 && rows.every((r) => r.status !== 'pending') && rows;
      }, 'both pages settled');
      expect(settled).toEqual([
        {
          account_id: carol.accountId,
          status: 'skipped',
          reason: 'in_app_disabled',
          notifications: 0,
        },
        { account_id: owner.accountId, status: 'sent', reason: null, notifications: 1 },
      ]);
      // Only the withheld page went through a page job's notifyEach.
      expect(
        pageNotifyCalls(notifyEach).map(([requests]) =>
          (requests as Array<{ recipients: string[] }>).map((r) => r.recipients),
        ),
      ).toEqual([[[carol.accountId]]]);
    } finally {
      notifyEach.mockRestore();
      await inAppRule(carol, true);
      await inAppRule(owner, true);
    }
  });

  it("decides a round's in-app rules per organization: withheld where the account is a member, mandatory where it is an admin", async () => {
    const erin = await createAccount(t, t.sink, 'erin@second.example', 'Second Org');
    // Carol's first invitation is in the sink still.
    t.sink.clear();
    await addMember(t, t.sink, erin, carol.login, 'admin');
    const secondId = await alertsProject(t, erin);
    const second: Project = {
      id: secondId,
      admin: erin,
      token: (
        await t
          .request()
          .post(`/projects/${secondId}/alert_ingest_tokens`)
          .set(bearer(erin.jwt))
          .expect(201)
      ).body.data.token as string,
    };
    await inAppRule(carol, false);
    const decisions = jest.spyOn(t.get(NotifyService), 'inAppDecisions');
    try {
      // Both first steps fall due at the same instant, so one round decides both.
      const step: StepSpec = {
        delay: 60,
        target: 'member',
        member: carol.accountId,
        channels: ['in_app'],
      };
      const inMember = await fire([step]);
      const inAdmin = await fire([step], undefined, second);
      // Escalations open behind the ingest: both at the same time, before the clock moves.
      await eventually(
        async () => (await instance(inMember.alertId)) && (await instance(inAdmin.alertId)),
        'both escalations open',
      );
      advance(60);
      const settledOf = (alertId: string) =>
        eventually(async () => {
          const rows = await pageOutcomes(alertId);
          return rows.length === 1 && rows[0].status !== 'pending' && rows;
        }, `the page of ${alertId} settled`);
      expect(await settledOf(inMember.alertId)).toEqual([
        {
          account_id: carol.accountId,
          status: 'skipped',
          reason: 'in_app_disabled',
          notifications: 0,
        },
      ]);
      expect(await settledOf(inAdmin.alertId)).toEqual([
        { account_id: carol.accountId, status: 'sent', reason: null, notifications: 1 },
      ]);
      // The notification belongs to the organization whose admin was paged.
      expect(
        await db.query(
          `SELECT organization_id FROM notification
            WHERE account_id = $1 AND payload ->> 'alert_id' = $2`,
          [carol.accountId, inAdmin.alertId],
        ),
      ).toEqual([{ organization_id: erin.organizationId }]);
      // One call decided the round for both organizations, each its own group.
      const groupsOfRound = decisions.mock.calls
        .map(([, groups]) =>
          groups.map((g) => [g.organizationId, [...g.accountIds]] as const).sort(),
        )
        .filter((groups) => groups.length === 2);
      expect(groupsOfRound).toEqual([
        [
          [owner.organizationId, [carol.accountId]],
          [erin.organizationId, [carol.accountId]],
        ].sort(),
      ]);
    } finally {
      decisions.mockRestore();
      await inAppRule(carol, true);
    }
  });

  it('an in-app acknowledgement halts the escalation; un-acknowledging does not resume it', async () => {
    const { alertId } = await fire([
      { target: 'member', member: alice.accountId, channels: ['in_app'] },
      { delay: 60, target: 'member', member: bob.accountId, channels: ['in_app', 'email'] },
    ]);
    await pagesAtLeast(alertId, 1);
    const acked = await ack(alertId);
    expect(acked.body.data).toMatchObject({
      acknowledged: true,
      acknowledgement_count: 1,
      acknowledged_by: { id: alice.accountId, name: 'alice' },
    });
    expect((await instance(alertId)).state).toBe('acknowledged');

    advance(120);
    expect(await t.get(EscalationEngine).runDue()).toBe(0);
    await settle();
    expect((await pages(alertId)).map((p) => p.step_index)).toEqual([0]);

    const unacked = await t
      .request()
      .delete(`/projects/${projectId}/alerts/${alertId}/ack`)
      .set(bearer(alice.jwt))
      .expect(200);
    expect(unacked.body.data).toMatchObject({ acknowledged: false, acknowledgement_count: 0 });
    expect((await instance(alertId)).state).toBe('acknowledged');
    advance(600);
    await settle();
    expect((await pages(alertId)).map((p) => p.step_index)).toEqual([0]);
  });

  it('re-escalates from step 1 after the window while the alert still fires, even after un-ack', async () => {
    const { alertId } = await fire(
      [
        { target: 'member', member: alice.accountId, channels: ['in_app'] },
        { delay: 60, target: 'member', member: carol.accountId, channels: ['in_app'] },
      ],
      { reEscalationAfter: 600 },
    );
    await deliveredAtLeast(alertId, 1);
    advance(1);
    await ack(alertId);
    advance(1);
    await t
      .request()
      .delete(`/projects/${projectId}/alerts/${alertId}/ack`)
      .set(bearer(alice.jwt))
      .expect(200);
    advance(598);
    await settle();
    expect((await instance(alertId)).generation).toBe(0);

    advance(1);
    await eventually(async () => (await instance(alertId)).generation === 1, 'the restart');
    const restarted = await deliveredAtLeast(alertId, 2);
    expect(restarted.map((p) => [p.generation, p.step_index, p.account_id])).toEqual([
      [0, 0, alice.accountId],
      [1, 0, alice.accountId],
    ]);
    expect((await instance(alertId)).state).toBe('active');
    advance(60);
    const all = await deliveredAtLeast(alertId, 3);
    expect(all.map((p) => [p.generation, p.step_index, p.account_id])).toEqual([
      [0, 0, alice.accountId],
      [1, 0, alice.accountId],
      [1, 1, carol.accountId],
    ]);
    // The timeline, one entry per instant (events of one instant in any order).
    const events = await db.query<Array<{ at: Date; kinds: string[] }>>(
      `SELECT created_at AS at, array_agg(kind ORDER BY kind) AS kinds FROM alert_event
        WHERE alert_id = $1 AND kind IN ('escalation_opened', 'paged', 'acknowledged',
              'unacknowledged', 're_escalated', 'escalation_exhausted')
        GROUP BY created_at ORDER BY created_at`,
      [alertId],
    );
    const opened = events[0].at.getTime();
    expect(events.map((e) => [(e.at.getTime() - opened) / 1000, e.kinds])).toEqual([
      [0, ['escalation_opened', 'paged']],
      [1, ['acknowledged']],
      [2, ['unacknowledged']],
      [601, ['paged', 're_escalated']],
      [661, ['escalation_exhausted', 'paged']],
    ]);
  });

  it('an acknowledgement after the chain ran out still re-escalates while the alert fires', async () => {
    const { alertId } = await fire(
      [{ target: 'member', member: alice.accountId, channels: ['in_app'] }],
      { reEscalationAfter: 600 },
    );
    await pagesAtLeast(alertId, 1);
    await eventually(async () => (await instance(alertId)).state === 'exhausted', 'exhaustion');
    await ack(alertId);
    expect((await instance(alertId)).state).toBe('acknowledged');
    advance(600);
    const again = await pagesAtLeast(alertId, 2);
    expect(again.map((p) => [p.generation, p.step_index])).toEqual([
      [0, 0],
      [1, 0],
    ]);
  });

  it('does not re-escalate an alert that resolved within the window', async () => {
    const { alertId, fingerprint, value } = await fire(
      [{ target: 'member', member: alice.accountId, channels: ['in_app'] }],
      { reEscalationAfter: 600 },
    );
    await pagesAtLeast(alertId, 1);
    await ack(alertId);
    advance(30);
    await ingest(fingerprint, value, 'resolved');
    await eventually(async () => (await instance(alertId)).state === 'resolved', 'cancellation');
    advance(600);
    await settle();
    expect(await pages(alertId)).toHaveLength(1);
    expect(await instance(alertId)).toMatchObject({ state: 'resolved', generation: 0 });
  });

  it('resolution cancels an active escalation', async () => {
    const { alertId, fingerprint, value } = await fire([
      { target: 'member', member: alice.accountId, channels: ['in_app'] },
      { delay: 60, target: 'member', member: bob.accountId, channels: ['in_app'] },
    ]);
    await pagesAtLeast(alertId, 1);
    await ingest(fingerprint, value, 'resolved');
    await eventually(async () => (await instance(alertId)).state === 'resolved', 'cancellation');
    advance(120);
    await settle();
    expect(await pages(alertId)).toHaveLength(1);
  });

  it('repeats the chain, then is exhausted without acknowledgement', async () => {
    const { alertId } = await fire(
      [{ delay: 60, target: 'member', member: alice.accountId, channels: ['in_app'] }],
      { repeats: 2 },
    );
    await settle();
    expect(await pages(alertId)).toEqual([]);
    for (let pass = 0; pass < 3; pass++) {
      advance(60);
      await pagesAtLeast(alertId, pass + 1);
    }
    await eventually(async () => (await instance(alertId)).state === 'exhausted', 'exhaustion');
    advance(600);
    await settle();
    expect((await pages(alertId)).map((p) => p.repeat_count)).toEqual([0, 1, 2]);
    expect(await instance(alertId)).toMatchObject({ state: 'exhausted', repeat_count: 2 });
    await eventually(
      async () => (await inAppPagesOf(alice, alertId)).length === 3,
      'three in-app pages',
    );
  });

  describe('on-call rosters', () => {
    let rosterId: string;
    /** Monday 2026-03-02 09:00 UTC, a handoff. */
    const MONDAY = new Date('2026-03-02T09:00:00Z');

    const absent = (account: TestAccount, from: Date, to: Date) =>
      t
        .request()
        .post('/notification_absences')
        .set(bearer(account.jwt))
        .send({ starts_at: from.toISOString(), ends_at: to.toISOString() })
        .expect(201);
    const onCallPage = async () => {
      const { alertId } = await fire([
        { target: 'roster_on_call', roster: rosterId, channels: ['in_app'] },
      ]);
      const [page] = await pagesAtLeast(alertId, 1);
      return page.account_id;
    };

    beforeAll(async () => {
      [{ id: rosterId }] = await db.query<Array<{ id: string }>>(
        `INSERT INTO on_call_roster (project_id, name, created_at, updated_at)
         VALUES ($1, 'primary', now(), now()) RETURNING id`,
        [projectId],
      );
      for (const [position, member] of [alice, bob, carol].entries()) {
        await db.query(
          `INSERT INTO on_call_roster_member (roster_id, account_id, position, created_at, updated_at)
           VALUES ($1, $2, $3, now(), now())`,
          [rosterId, member.accountId, position],
        );
      }
      await db.query(
        `INSERT INTO on_call_rotation (roster_id, time_zone, start_date, handoff_time, shift_length,
           created_at, updated_at)
         VALUES ($1, 'UTC', '2026-03-02', '09:00', 'daily', now(), now())`,
        [rosterId],
      );
    });

    it("pages the rotation's member, an override instead, and skips an absent member", async () => {
      t.clock.set(new Date(MONDAY.getTime() + 3600_000));
      expect(await onCallPage()).toBe(alice.accountId);

      // Tuesday is bob's shift; an override hands 12:00-14:00 to carol.
      t.clock.set(new Date('2026-03-03T12:30:00Z'));
      expect(await onCallPage()).toBe(bob.accountId);
      await db.query(
        `INSERT INTO on_call_override (roster_id, account_id, starts_at, ends_at, created_at, updated_at)
         VALUES ($1, $2, '2026-03-03T12:00:00Z', '2026-03-03T14:00:00Z', now(), now())`,
        [rosterId, carol.accountId],
      );
      expect(await onCallPage()).toBe(carol.accountId);

      // Wednesday is carol's shift, but she is away: the next member (alice) is paged.
      t.clock.set(new Date('2026-03-04T10:00:00Z'));
      await absent(carol, new Date('2026-03-04T00:00:00Z'), new Date('2026-03-05T00:00:00Z'));
      expect(await onCallPage()).toBe(alice.accountId);
    });

    it('still pages the scheduled member when everyone is absent', async () => {
      // Friday, day 4 of the rotation: bob's shift (4 mod 3 = 1).
      t.clock.set(new Date('2026-03-06T10:00:00Z'));
      const from = new Date('2026-03-06T00:00:00Z');
      const to = new Date('2026-03-07T00:00:00Z');
      for (const member of [alice, bob, carol]) await absent(member, from, to);
      expect(await onCallPage()).toBe(bob.accountId);
    });

    it("a route's roster target notifies the roster's on-call member in-app", async () => {
      // Saturday, day 5: carol's shift (5 mod 3 = 2).
      t.clock.set(new Date('2026-03-07T10:00:00Z'));
      const value = `case-${++sequence}`;
      await t
        .request()
        .post(`/projects/${projectId}/alert_routes`)
        .set(bearer(owner.jwt))
        .send({
          priority: ++sequence,
          matchers: [{ label: 'case', op: 'eq', value }],
          in_app_target_type: 'roster',
          in_app_target_roster_id: rosterId,
        })
        .expect(201);
      await ingest(`fp-${value}`, value, 'firing');
      const [{ id: alertId }] = await db.query<Array<{ id: string }>>(
        'SELECT id FROM alert WHERE project_id = $1 AND fingerprint = $2',
        [projectId, `fp-${value}`],
      );
      const notifiedOf = () =>
        db.query<Array<{ account_id: string }>>(
          `SELECT account_id FROM notification
            WHERE category_key = 'alert_escalation' AND payload ->> 'alert_id' = $1`,
          [alertId],
        );
      await eventually(async () => (await notifiedOf()).length > 0, 'the roster notification');
      await settle();
      const notified = await notifiedOf();
      expect(notified).toEqual([{ account_id: carol.accountId }]);
      const [event] = await db.query<Array<{ details: Record<string, unknown> }>>(
        `SELECT details FROM alert_event WHERE alert_id = $1 AND kind = 'notified'`,
        [alertId],
      );
      expect(event.details).toMatchObject({
        target: 'roster',
        roster_id: rosterId,
        recipients: [carol.accountId],
      });
    });
  });

  it('runs a step whose job Redis kept without its place in the queue (the sweeper clears the record)', async () => {
    const { alertId } = await fire([
      { target: 'member', member: alice.accountId, channels: ['in_app'] },
      { delay: 60, target: 'member', member: alice.accountId, channels: ['in_app'] },
    ]);
    await eventually(async () => (await inAppPagesOf(alice, alertId)).length === 1, 'step 1');
    const [{ due_at: dueAt }] = await db.query<Array<{ due_at: Date }>>(
      `SELECT d.due_at FROM escalation_due d JOIN escalation_instance i ON i.id = d.instance_id
        WHERE i.alert_id = $1`,
      [alertId],
    );
    await loseDelayedPlace(t, JobName.EscalationStep, EscalationJobs.stepJobId(dueAt));

    advance(60);
    await eventually(async () => (await inAppPagesOf(alice, alertId)).length === 2, 'step 2');
  });

  it('delivers every remaining step exactly once after Redis is flushed mid-escalation', async () => {
    const { alertId } = await fire([
      { target: 'member', member: alice.accountId, channels: ['in_app'] },
      { delay: 60, target: 'member', member: alice.accountId, channels: ['in_app'] },
      { delay: 60, target: 'member', member: bob.accountId, channels: ['in_app', 'sms'] },
    ]);
    await eventually(async () => (await inAppPagesOf(alice, alertId)).length === 1, 'step 1');

    // Everything the queues held (the delayed job of step 2 included) is gone.
    await deleteRedisPrefix(t.config.redisPrefix);

    advance(60);
    await eventually(async () => (await inAppPagesOf(alice, alertId)).length === 2, 'step 2');
    advance(60);
    await eventually(async () => (await inAppPagesOf(bob, alertId)).length === 1, 'step 3');
    await twilio.device(BOB_PHONE).expectSms();

    // Several more sweeps and a spare step job change nothing.
    await settle();
    expect(await t.get(EscalationEngine).runDue()).toBe(0);
    const rows = await pages(alertId);
    expect(rows.map((p) => [p.step_index, p.channel, p.account_id, p.status])).toEqual([
      [0, 'in_app', alice.accountId, 'sent'],
      [1, 'in_app', alice.accountId, 'sent'],
      [2, 'in_app', bob.accountId, 'sent'],
      [2, 'sms', bob.accountId, 'sent'],
    ]);
    expect(await inAppPagesOf(alice, alertId)).toHaveLength(2);
    expect(await inAppPagesOf(bob, alertId)).toHaveLength(1);
    // One text only: a second would be unexpected.
    twilio.expectNoUnexpected();
    expect((await instance(alertId)).state).toBe('exhausted');
  });
});
