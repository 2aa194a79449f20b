import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FakeTwilio, type TwilioCall, eventually } from '@platform/testing';
import { DataSource } from 'typeorm';
import { AcknowledgementsService } from '../../libs/escalation/src/acknowledgement/acknowledgements.service.js';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import { addMember, bearer, createAccount, type TestAccount } from '../support/identity.js';

type Channel = 'email' | 'phone' | 'sms';

interface PageRow {
  id: string;
  channel: Channel;
  status: string;
  provider_ref: string | null;
  reply_code: string | null;
  phone_number: string | null;
}

const TWIML = 'text/xml; charset=utf-8';
const CALL_ACKNOWLEDGED = '<Response><Say>Acknowledged. Escalation stopped.</Say></Response>';
const CALL_REFUSED = '<Response><Say>This page can no longer be acknowledged.</Say></Response>';
const SMS_ACKNOWLEDGED = '<Response><Message>Acknowledged.</Message></Response>';
const SMS_REFUSED =
  '<Response><Message>Unknown or expired reply code; nothing was acknowledged.</Message></Response>';

/**
 * The answers to a page (signed e-mail link, phone call, SMS reply) are bound to the
 * escalation that sent them and to whom they went, as things stand when they arrive: a page
 * of an earlier firing of the same alert, or answered by someone no longer a member (or from a
 * number no longer theirs), acknowledges nothing. Alerts fire and resolve through the real
 * ingest, dispatch, escalation engine and page delivery.
 */
describe('acknowledgement answers bound to their escalation and membership', () => {
  let t: MailingTestApp;
  let twilio: FakeTwilio;
  let db: DataSource;
  let owner: TestAccount;
  let projectId: string;
  let ingestToken: string;
  let sequence = 0;
  let numbers = 0;

  beforeAll(async () => {
    twilio = await FakeTwilio.start();
    t = await createMailingApiTestApp({
      listen: true,
      config: { phone: twilio.config(), escalationSweepIntervalMs: 100 },
    });
    db = t.get(DataSource);
    owner = await createAccount(t, t.sink, 'owner@binding.example', 'Binding Org');
    projectId = await alertsProject(t, owner);
    ingestToken = (
      await t
        .request()
        .post(`/projects/${projectId}/alert_ingest_tokens`)
        .set(bearer(owner.jwt))
        .expect(201)
    ).body.data.token as string;
  });

  afterAll(async () => {
    await t?.close();
    await twilio?.close();
  });

  /** A developer of the organization with a verified phone number. */
  const member = async (name: string) => {
    const account = await addMember(t, t.sink, owner, `${name}@binding.example`, 'developer');
    const number = `+49151000${String(++numbers).padStart(5, '0')}`;
    await db.query(
      'UPDATE account SET phone_number = $2, phone_verified_at = now() WHERE id = $1',
      [account.accountId, number],
    );
    return { ...account, number };
  };
  const membershipId = async (account: TestAccount) => {
    const res = await t
      .request()
      .get(`/memberships?organization_id=${owner.organizationId}`)
      .set(bearer(owner.jwt))
      .expect(200);
    return (res.body.data as Array<{ id: string; account_id: string }>).find(
      (m) => m.account_id === account.accountId,
    )!.id;
  };
  const removeMember = async (account: TestAccount) =>
    t
      .request()
      .delete(`/memberships/${await membershipId(account)}?organization_id=${owner.organizationId}`)
      .set(bearer(owner.jwt))
      .expect(204);
  const setAlertsPermission = async (account: TestAccount, levels: string[]) =>
    t
      .request()
      .patch(`/memberships/${await membershipId(account)}?organization_id=${owner.organizationId}`)
      .set(bearer(owner.jwt))
      .send({ permissions: { alerts: levels } })
      .expect(200);

  /**
   * A route of its own label value opening a chain that pages `target` at once on `channels`
   * and, unless `exhausts`, the owner in-app an hour later (so the escalation stays active
   * meanwhile); answers the label value.
   */
  const routeTo = async (
    target: { accountId: string } | { rosterId: string },
    channels: Channel[],
    { exhausts = false } = {},
  ) => {
    const value = `case-${++sequence}`;
    const [{ id: chainId }] = await db.query<Array<{ id: string }>>(
      `INSERT INTO escalation_chain (project_id, name, created_at, updated_at)
       VALUES ($1, $2, now(), now()) RETURNING id`,
      [projectId, `chain ${value}`],
    );
    const byRoster = 'rosterId' in target;
    const step = `INSERT INTO escalation_step (chain_id, position, delay_seconds, target_type,
         target_member_id, target_roster_id, channels, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now(), now())`;
    await db.query(step, [
      chainId,
      0,
      0,
      byRoster ? 'phone_contacts' : 'member',
      byRoster ? null : target.accountId,
      byRoster ? target.rosterId : null,
      channels,
    ]);
    if (!exhausts)
      await db.query(step, [chainId, 1, 3600, 'member', owner.accountId, null, ['in_app']]);
    await t
      .request()
      .post(`/projects/${projectId}/alert_routes`)
      .set(bearer(owner.jwt))
      .send({
        priority: sequence,
        matchers: [{ label: 'case', op: 'eq', value }],
        escalation_chain_id: chainId,
        in_app_target_type: 'none',
      })
      .expect(201);
    return value;
  };
  const ingest = (value: string, status: 'firing' | 'resolved') =>
    t
      .request()
      .post(`/projects/${projectId}/alerts`)
      .set('X-Access-Token', ingestToken)
      .send({
        version: '4',
        status,
        receiver: 'platform',
        alerts: [
          {
            status,
            labels: { alertname: 'DbDown', severity: 'critical', case: value },
            annotations: { summary: `${value} is down` },
            startsAt: t.clock.now().toISOString(),
            endsAt: status === 'resolved' ? t.clock.now().toISOString() : '0001-01-01T00:00:00Z',
            fingerprint: `fp-${value}`,
          },
        ],
      })
      .expect(200);

  const instances = (alertId: string) =>
    db.query<Array<{ id: string; state: string }>>(
      'SELECT id, state FROM escalation_instance WHERE alert_id = $1 ORDER BY opened_at, id',
      [alertId],
    );
  /** Fires (or fires again) `value`'s alert and waits for its `n`th escalation's pages, sent. */
  const fire = async (value: string, n: number, pageCount: number) => {
    await ingest(value, 'firing');
    const [{ id: alertId }] = await db.query<Array<{ id: string }>>(
      'SELECT id FROM alert WHERE project_id = $1 AND fingerprint = $2',
      [projectId, `fp-${value}`],
    );
    const instance = await eventually(
      async () => (await instances(alertId))[n - 1],
      `escalation ${n} of ${value}`,
    );
    const pages = await eventually(async () => {
      const rows = await db.query<PageRow[]>(
        `SELECT p.id, p.channel, d.status, d.provider_ref, p.reply_code, p.phone_number
           FROM escalation_page p JOIN delivery d ON d.id = p.id
          WHERE p.instance_id = $1 ORDER BY p.channel`,
        [instance.id],
      );
      return rows.length === pageCount && rows.every((p) => p.status === 'sent') && rows;
    }, `${pageCount} page(s) of escalation ${n} of ${value} sent`);
    const page = (channel: Channel) => pages.find((p) => p.channel === channel)!;
    return { alertId, instanceId: instance.id, page };
  };
  const resolve = async (alertId: string, value: string) => {
    t.clock.advance({ minutes: 5 });
    await ingest(value, 'resolved');
    await eventually(
      async () => (await instances(alertId)).every((i) => i.state === 'resolved'),
      `the escalations of ${value} resolved`,
    );
    t.clock.advance({ minutes: 5 });
  };

  /** The signed link the e-mail page of `instanceId` carried. */
  const linkOf = async (instanceId: string) => {
    const tokenIn = (text: string) => /\/alerts\/ack\/(\S+)/.exec(text)?.[1];
    const claims = (token: string) =>
      JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()) as { i: string };
    const mail = await t.sink.waitFor((m) => {
      const token = tokenIn(m.text);
      return token !== undefined && claims(token).i === instanceId;
    }, 20_000);
    return tokenIn(mail.text)!;
  };
  const callOf = async (page: PageRow) =>
    (await twilio.waitFor((r) => r.kind === 'call' && r.sid === page.provider_ref)) as TwilioCall;
  const answerCall = async (page: PageRow, digits = '1') =>
    twilio.answer(await callOf(page), digits, { deliverTo: t.baseUrl });
  const replySms = (from: string, code: string) =>
    twilio.receiveSms(
      `${t.config.publicUrl}/alerts/sms_reply`,
      { from, body: code },
      { deliverTo: t.baseUrl },
    );

  const acks = (alertId: string) =>
    db.query(
      `SELECT channel, account_id, contact_label, escalation_instance_id FROM alert_acknowledgement
        WHERE alert_id = $1 ORDER BY created_at, channel`,
      [alertId],
    );
  const ackedLedger = (alertId: string) =>
    db.query(
      `SELECT count(*)::int AS n FROM escalation_ledger WHERE alert_id = $1 AND action = 'acked'`,
      [alertId],
    );
  const ackEvents = (alertId: string) =>
    db.query(
      `SELECT count(*)::int AS n FROM alert_event WHERE alert_id = $1 AND kind = 'acknowledged'`,
      [alertId],
    );
  /** Nothing acknowledged the alert: no row, no ledger entry, no timeline event. */
  const expectNothingAcknowledged = async (alertId: string) => {
    expect(await acks(alertId)).toEqual([]);
    expect(await ackedLedger(alertId)).toEqual([{ n: 0 }]);
    expect(await ackEvents(alertId)).toEqual([{ n: 0 }]);
  };
  const expectLinkRefused = async (token: string, status: number, code: string) => {
    for (const method of ['get', 'post'] as const) {
      const res = await t.request()[method](`/alerts/ack/${token}`).expect(status);
      expect(res.body).toMatchObject({
        code,
        source_service: 'escalation',
        source_operation: `signedAck.${method === 'get' ? 'show' : 'acknowledge'}`,
      });
    }
  };

  describe('a page of an earlier firing of the same alert', () => {
    it('its e-mail link is 410 link_superseded once the alert resolved, and after it fired again', async () => {
      const alice = await member('alice');
      const value = await routeTo({ accountId: alice.accountId }, ['email']);
      const first = await fire(value, 1, 1);
      const oldLink = await linkOf(first.instanceId);
      await t.request().get(`/alerts/ack/${oldLink}`).expect(200);

      await resolve(first.alertId, value);
      await expectLinkRefused(oldLink, 410, 'link_superseded');

      const second = await fire(value, 2, 1);
      expect(second.alertId).toBe(first.alertId);
      expect(second.instanceId).not.toBe(first.instanceId);
      await expectLinkRefused(oldLink, 410, 'link_superseded');
      // Checked again under the alert's lock: an answer that passed its checks just before the
      // alert fired again records nothing either.
      await expect(
        t.get(AcknowledgementsService).acknowledge({
          projectId,
          alertId: first.alertId,
          by: { kind: 'account', id: alice.accountId, name: 'alice' },
          channel: 'email',
          instanceId: first.instanceId,
          onlyCurrentInstance: true,
        }),
      ).rejects.toMatchObject({ code: 'link_superseded' });
      await expectNothingAcknowledged(first.alertId);
      expect(await instances(first.alertId)).toEqual([
        { id: first.instanceId, state: 'resolved' },
        { id: second.instanceId, state: 'active' },
      ]);
      const alert = await t
        .request()
        .get(`/projects/${projectId}/alerts/${first.alertId}`)
        .set(bearer(owner.jwt))
        .expect(200);
      expect(alert.body.data).toMatchObject({ acknowledged: false, acknowledgement_count: 0 });

      // The new incident's own link works, once and idempotently; the old one stays refused.
      const newLink = await linkOf(second.instanceId);
      const shown = await t.request().get(`/alerts/ack/${newLink}`).expect(200);
      expect(shown.body.data).toMatchObject({
        alert_id: first.alertId,
        account_id: alice.accountId,
        escalation_instance_id: second.instanceId,
      });
      for (let i = 0; i < 2; i += 1) {
        const res = await t.request().post(`/alerts/ack/${newLink}`).expect(200);
        expect(res.body.data).toEqual({ acked: true, alert_id: first.alertId });
      }
      expect(await acks(first.alertId)).toEqual([
        {
          channel: 'email',
          account_id: alice.accountId,
          contact_label: null,
          escalation_instance_id: second.instanceId,
        },
      ]);
      expect(await ackedLedger(first.alertId)).toEqual([{ n: 1 }]);
      expect((await instances(first.alertId))[1].state).toBe('acknowledged');
      await expectLinkRefused(oldLink, 410, 'link_superseded');

      // A link that acknowledged its firing is spent once that firing is over.
      await resolve(first.alertId, value);
      await expectLinkRefused(newLink, 410, 'link_superseded');
      expect(await acks(first.alertId)).toHaveLength(1);
    });

    it('its call answered with 1, or its SMS reply code, acknowledges nothing', async () => {
      const bob = await member('bob');
      const value = await routeTo({ accountId: bob.accountId }, ['phone', 'sms']);
      const first = await fire(value, 1, 2);
      await resolve(first.alertId, value);
      const second = await fire(value, 2, 2);

      expect(await answerCall(first.page('phone'))).toEqual({
        status: 200,
        contentType: TWIML,
        body: CALL_REFUSED,
      });
      expect(await replySms(bob.number, first.page('sms').reply_code!)).toEqual({
        status: 200,
        contentType: TWIML,
        body: SMS_REFUSED,
      });
      await expectNothingAcknowledged(first.alertId);
      expect((await instances(first.alertId))[1].state).toBe('active');

      // The new incident's call and reply code do acknowledge it.
      expect((await answerCall(second.page('phone'))).body).toBe(CALL_ACKNOWLEDGED);
      expect((await replySms(bob.number, second.page('sms').reply_code!)).body).toBe(
        SMS_ACKNOWLEDGED,
      );
      expect(await acks(first.alertId)).toEqual([
        {
          channel: 'phone',
          account_id: bob.accountId,
          contact_label: null,
          escalation_instance_id: second.instanceId,
        },
      ]);
      expect((await instances(first.alertId))[1].state).toBe('acknowledged');
    });
  });

  describe('a page held by someone who may no longer acknowledge', () => {
    it('a link of a member removed from the organization is 403 forbidden', async () => {
      const carol = await member('carol');
      const value = await routeTo({ accountId: carol.accountId }, ['email']);
      const { alertId, instanceId } = await fire(value, 1, 1);
      const link = await linkOf(instanceId);
      await t.request().get(`/alerts/ack/${link}`).expect(200);

      await removeMember(carol);
      await expectLinkRefused(link, 403, 'forbidden');
      await expectNothingAcknowledged(alertId);
      expect((await instances(alertId))[0].state).toBe('active');
    });

    it('a link is checked at each use: 403 while its member may only read alerts, 200 again after', async () => {
      const dave = await member('dave');
      // The chain runs out at once: an exhausted escalation of the firing still takes the link.
      const value = await routeTo({ accountId: dave.accountId }, ['email'], { exhausts: true });
      const { alertId, instanceId } = await fire(value, 1, 1);
      const link = await linkOf(instanceId);
      await eventually(
        async () => (await instances(alertId))[0].state === 'exhausted',
        'the escalation exhausted',
      );

      await setAlertsPermission(dave, ['read']);
      await expectLinkRefused(link, 403, 'forbidden');
      await expectNothingAcknowledged(alertId);

      await setAlertsPermission(dave, ['read', 'update']);
      await t.request().post(`/alerts/ack/${link}`).expect(200);
      expect((await instances(alertId))[0].state).toBe('acknowledged');
      expect(await acks(alertId)).toEqual([
        {
          channel: 'email',
          account_id: dave.accountId,
          contact_label: null,
          escalation_instance_id: instanceId,
        },
      ]);
    });

    it('a removed member answering the call or the SMS acknowledges nothing', async () => {
      const erin = await member('erin');
      const value = await routeTo({ accountId: erin.accountId }, ['phone', 'sms']);
      const { alertId, page } = await fire(value, 1, 2);

      await removeMember(erin);
      expect((await answerCall(page('phone'))).body).toBe(CALL_REFUSED);
      expect((await replySms(erin.number, page('sms').reply_code!)).body).toBe(SMS_REFUSED);
      await expectNothingAcknowledged(alertId);
      expect((await instances(alertId))[0].state).toBe('active');
    });

    it("an SMS reply from a number that is no longer the member's acknowledges nothing", async () => {
      const frank = await member('frank');
      const value = await routeTo({ accountId: frank.accountId }, ['sms']);
      const { alertId, page } = await fire(value, 1, 1);

      await db.query(
        "UPDATE account SET phone_number = '+4915199999999', phone_verified_at = now() WHERE id = $1",
        [frank.accountId],
      );
      expect((await replySms(frank.number, page('sms').reply_code!)).body).toBe(SMS_REFUSED);
      await expectNothingAcknowledged(alertId);
    });

    it('a phone contact taken off the roster acknowledges nothing; one still on it does', async () => {
      const roster = await t
        .request()
        .post(`/projects/${projectId}/on_call_rosters`)
        .set(bearer(owner.jwt))
        .send({ name: 'NOC' })
        .expect(201);
      const rosterId = roster.body.data.id as string;
      const contacts = `/projects/${projectId}/on_call_rosters/${rosterId}/on_call_roster_phone_contacts`;
      const desk = await t
        .request()
        .post(contacts)
        .set(bearer(owner.jwt))
        .send({ label: 'NOC desk', phone_number: '+4930000000001' })
        .expect(201);
      await t
        .request()
        .post(contacts)
        .set(bearer(owner.jwt))
        .send({ label: 'NOC lead', phone_number: '+4930000000002' })
        .expect(201);
      const value = await routeTo({ rosterId }, ['sms']);
      const { alertId, instanceId } = await fire(value, 1, 2);
      const codeFor = async (number: string) =>
        (
          await db.query<Array<{ reply_code: string }>>(
            'SELECT reply_code FROM escalation_page WHERE instance_id = $1 AND phone_number = $2',
            [instanceId, number],
          )
        )[0].reply_code;

      await t
        .request()
        .delete(`${contacts}/${desk.body.data.id}`)
        .set(bearer(owner.jwt))
        .expect(204);
      expect((await replySms('+4930000000001', await codeFor('+4930000000001'))).body).toBe(
        SMS_REFUSED,
      );
      await expectNothingAcknowledged(alertId);

      expect((await replySms('+4930000000002', await codeFor('+4930000000002'))).body).toBe(
        SMS_ACKNOWLEDGED,
      );
      expect(await acks(alertId)).toEqual([
        {
          channel: 'phone',
          account_id: null,
          contact_label: 'NOC lead',
          escalation_instance_id: instanceId,
        },
      ]);
    });
  });

  it('a deleted account is still 404 not_found, before its membership is looked at', async () => {
    const gone = await member('gone');
    const value = await routeTo({ accountId: gone.accountId }, ['email']);
    const { alertId, instanceId } = await fire(value, 1, 1);
    const link = await linkOf(instanceId);
    await db.query('DELETE FROM account WHERE id = $1', [gone.accountId]);
    await expectLinkRefused(link, 404, 'not_found');
    await expectNothingAcknowledged(alertId);
  });
});
