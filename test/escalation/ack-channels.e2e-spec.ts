import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FakeTwilio, type TwilioCall } from '@platform/testing';
import { DataSource } from 'typeorm';
import { PageDeliveryProcessor } from '../../libs/escalation/src/paging/page-delivery.processor.js';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import { addMember, bearer, createAccount, type TestAccount } from '../support/identity.js';

type Channel = 'in_app' | 'email' | 'phone' | 'sms';
type Recipient = { accountId: string } | { label: string; number: string };

const ADMIN_NUMBER = '+4915100000001';
const CONTACT_NUMBER = '+4915100000099';
const TWIML = 'text/xml; charset=utf-8';
const ACKNOWLEDGED_CALL = '<Response><Say>Acknowledged. Escalation stopped.</Say></Response>';
const UNKNOWN_CODE =
  '<Response><Message>Unknown or expired reply code; nothing was acknowledged.</Message></Response>';

describe('acknowledgement by signed link, phone and SMS', () => {
  let t: MailingTestApp;
  let twilio: FakeTwilio;
  let db: DataSource;
  let admin: TestAccount;
  let projectId: string;

  beforeAll(async () => {
    twilio = await FakeTwilio.start();
    t = await createMailingApiTestApp({ listen: true, config: { phone: twilio.config() } });
    db = t.get(DataSource);
    admin = await createAccount(t, t.sink, 'oncall@acks.example');
    projectId = await alertsProject(t, admin, 'payments');
    await db.query(
      "UPDATE account SET name = 'Olivia Oncall', phone_number = $2, phone_verified_at = now() WHERE id = $1",
      [admin.accountId, ADMIN_NUMBER],
    );
    // A contact answers only while it is on a roster of the project with the number paged.
    const roster = await t
      .request()
      .post(`/projects/${projectId}/on_call_rosters`)
      .set(bearer(admin.jwt))
      .send({ name: 'NOC' })
      .expect(201);
    await t
      .request()
      .post(
        `/projects/${projectId}/on_call_rosters/${roster.body.data.id}/on_call_roster_phone_contacts`,
      )
      .set(bearer(admin.jwt))
      .send({ label: 'NOC desk', phone_number: CONTACT_NUMBER })
      .expect(201);
  });

  afterAll(async () => {
    await t.close();
    await twilio.close();
  });

  const insertAlert = async (project = projectId) => {
    const now = t.clock.now();
    const [row] = await db.query(
      `INSERT INTO alert (project_id, fingerprint, status, severity, labels, annotations, starts_at,
                          last_received_at, created_at, updated_at)
       VALUES ($1, $2, 'firing', 'high', '{"alertname": "QueueBacklog"}',
               '{"summary": "Queue backlog above 10k"}', $3, $3, $3, $3) RETURNING id`,
      [project, `fp-${Math.random().toString(36).slice(2)}`, now],
    );
    return row.id as string;
  };
  /** An alert with an active escalation, one page of it, delivered. */
  const delivered = async (
    channel: Channel,
    recipient: Recipient,
    options: { replyCode?: string; project?: string } = {},
  ) => {
    const project = options.project ?? projectId;
    const alertId = await insertAlert(project);
    const now = t.clock.now();
    const snapshot = {
      id: alertId,
      name: 'Primary',
      re_escalation_after: null,
      repeats: 0,
      steps: [],
    };
    const [instance] = await db.query(
      `INSERT INTO escalation_instance (project_id, alert_id, chain_snapshot, state, opened_at, updated_at)
       VALUES ($1, $2, $3, 'active', $4, $4) RETURNING id`,
      [project, alertId, JSON.stringify(snapshot), now],
    );
    const isAccount = 'accountId' in recipient;
    const [page] = await db.query(
      `WITH page AS (
         INSERT INTO escalation_page (instance_id, project_id, alert_id, generation, repeat_count,
           step_index, channel, account_id, contact_label, phone_number, reply_code, created_at)
         VALUES ($1, $2, $3, 0, 0, 0, $4, $5, $6, $7, $8, $9) RETURNING id, channel
       ), record AS (
         INSERT INTO delivery (id, source, channel, status, created_at, due_at)
         SELECT id, 'escalation_page', channel, 'pending', $9, $9 FROM page
       )
       SELECT id FROM page`,
      [
        instance.id,
        project,
        alertId,
        channel,
        isAccount ? recipient.accountId : null,
        isAccount ? null : recipient.label,
        isAccount ? ADMIN_NUMBER : recipient.number,
        options.replyCode ?? null,
        now,
      ],
    );
    // Texts and calls to one number are limited (10 a minute): pages go out 10 s apart.
    if (channel !== 'email') t.clock.advance({ seconds: 10 });
    expect(await t.get(PageDeliveryProcessor).deliver({ pageIds: [page.id] })).toMatchObject([
      { outcome: 'sent' },
    ]);
    return { alertId, instanceId: instance.id as string, pageId: page.id as string };
  };
  const linkFor = async (alertId: string) => {
    const mail = await t.sink.waitFor((m) => m.text.includes(alertId));
    return /\/alerts\/ack\/(\S+)/.exec(mail.text)![1];
  };
  const callFor = async (pageId: string) => {
    const [row] = await db.query('SELECT provider_ref FROM delivery WHERE id = $1', [pageId]);
    return (await twilio.waitFor(
      (r) => r.kind === 'call' && r.sid === row.provider_ref,
    )) as TwilioCall;
  };
  const alert = async (alertId: string, project = projectId) =>
    (
      await t
        .request()
        .get(`/projects/${project}/alerts/${alertId}`)
        .set(bearer(admin.jwt))
        .expect(200)
    ).body.data as Record<string, unknown>;
  const instanceState = async (instanceId: string) =>
    (await db.query('SELECT state FROM escalation_instance WHERE id = $1', [instanceId]))[0].state;
  const acks = (alertId: string) =>
    db.query(
      `SELECT channel, account_id, contact_label, escalation_instance_id FROM alert_acknowledgement
        WHERE alert_id = $1`,
      [alertId],
    );
  const ackLedger = (alertId: string) =>
    db.query(
      `SELECT account_id, contact_label, channel, instance_id FROM escalation_ledger
        WHERE alert_id = $1 AND action = 'acked'`,
      [alertId],
    );
  const smsReply = (from: string, body: string) =>
    twilio.receiveSms(
      `${t.config.publicUrl}/alerts/sms_reply`,
      { from, body },
      { deliverTo: t.baseUrl },
    );

  describe('signed e-mail link', () => {
    it('GET shows what it acknowledges and changes nothing', async () => {
      const { alertId, instanceId } = await delivered('email', { accountId: admin.accountId });
      const token = await linkFor(alertId);
      const res = await t.request().get(`/alerts/ack/${token}`).expect(200);
      expect(res.body.data).toEqual({
        alert_id: alertId,
        account_id: admin.accountId,
        escalation_instance_id: instanceId,
        alert_summary: 'Queue backlog above 10k',
        alert_severity: 'high',
      });
      expect(res.body.metadata).toMatchObject({ organization_id: null });
      expect(await acks(alertId)).toEqual([]);
      expect(await instanceState(instanceId)).toBe('active');
    });

    it('POST acknowledges as the linked account on channel email, halts, and is idempotent', async () => {
      const { alertId, instanceId } = await delivered('email', { accountId: admin.accountId });
      const token = await linkFor(alertId);
      for (let i = 0; i < 2; i += 1) {
        const res = await t.request().post(`/alerts/ack/${token}`).expect(200);
        expect(res.body.data).toEqual({ acked: true, alert_id: alertId });
      }
      expect(await alert(alertId)).toMatchObject({
        acknowledged: true,
        acknowledged_by: { id: admin.accountId, name: 'Olivia Oncall' },
        acknowledgement_count: 1,
      });
      expect(await instanceState(instanceId)).toBe('acknowledged');
      expect(await acks(alertId)).toEqual([
        {
          channel: 'email',
          account_id: admin.accountId,
          contact_label: null,
          escalation_instance_id: instanceId,
        },
      ]);
      expect(await ackLedger(alertId)).toEqual([
        {
          account_id: admin.accountId,
          contact_label: null,
          channel: 'email',
          instance_id: instanceId,
        },
      ]);
    });

    it('a changed or malformed token is 401 invalid_signed_token and acknowledges nothing', async () => {
      const { alertId } = await delivered('email', { accountId: admin.accountId });
      const token = await linkFor(alertId);
      const [payload, signature] = token.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const otherAlert = Buffer.from(
        JSON.stringify({ ...claims, a: await insertAlert() }),
      ).toString('base64url');
      const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
      for (const bad of [
        `${otherAlert}.${signature}`,
        `${payload}.${flipped}`,
        'abc',
        `${token}.x`,
      ]) {
        for (const method of ['get', 'post'] as const) {
          const res = await t.request()[method](`/alerts/ack/${bad}`).expect(401);
          expect(res.body).toMatchObject({ code: 'invalid_signed_token' });
        }
      }
      expect(await acks(alertId)).toEqual([]);
    });

    it('a phone page callback token is no e-mail link', async () => {
      const { pageId } = await delivered('phone', { accountId: admin.accountId });
      const action = (await callFor(pageId)).twiml.match(/phone_ack\/([^"]+)"/)![1];
      const res = await t.request().post(`/alerts/ack/${action}`).expect(401);
      expect(res.body.code).toBe('invalid_signed_token');
    });

    it('the account or the alert gone is 404 not_found', async () => {
      const leaver = await addMember(t, t.sink, admin, 'leaver@acks.example', 'developer');
      const byLeaver = await delivered('email', { accountId: leaver.accountId });
      const leaverToken = await linkFor(byLeaver.alertId);
      await db.query('DELETE FROM account WHERE id = $1', [leaver.accountId]);
      for (const method of ['get', 'post'] as const) {
        const res = await t.request()[method](`/alerts/ack/${leaverToken}`).expect(404);
        expect(res.body.code).toBe('not_found');
      }

      const deleted = await delivered('email', { accountId: admin.accountId });
      const token = await linkFor(deleted.alertId);
      await db.query('DELETE FROM alert WHERE id = $1', [deleted.alertId]);
      for (const method of ['get', 'post'] as const) {
        const res = await t.request()[method](`/alerts/ack/${token}`).expect(404);
        expect(res.body.code).toBe('not_found');
      }
    });

    it('a project that lost the alerts capability answers 403, on every channel', async () => {
      const other = await alertsProject(t, admin, 'revoked');
      const { alertId } = await delivered(
        'email',
        { accountId: admin.accountId },
        { project: other },
      );
      const token = await linkFor(alertId);
      const byPhone = await delivered('phone', { accountId: admin.accountId }, { project: other });
      const bySms = await delivered(
        'sms',
        { accountId: admin.accountId },
        { project: other, replyCode: '303030' },
      );
      await t
        .request()
        .delete(`/organizations/${admin.organizationId}/projects/${other}/feature-grants/alerts`)
        .set(bearer(admin.jwt))
        .expect(204);
      for (const method of ['get', 'post'] as const) {
        const res = await t.request()[method](`/alerts/ack/${token}`).expect(403);
        expect(res.body.code).toBe('alerts_capability_not_enabled');
      }
      for (const reply of [
        await twilio.answer(await callFor(byPhone.pageId), '1', { deliverTo: t.baseUrl }),
        await smsReply(ADMIN_NUMBER, '303030'),
      ]) {
        expect(reply.status).toBe(403);
        expect(JSON.parse(reply.body)).toMatchObject({ code: 'alerts_capability_not_enabled' });
      }
      for (const id of [alertId, byPhone.alertId, bySms.alertId])
        expect(await acks(id)).toEqual([]);
    });
  });

  describe('phone answer', () => {
    it('pressing 1 acknowledges as the called account and stops the escalation', async () => {
      const { alertId, instanceId, pageId } = await delivered('phone', {
        accountId: admin.accountId,
      });
      const reply = await twilio.answer(await callFor(pageId), '1', { deliverTo: t.baseUrl });
      expect(reply).toEqual({ status: 200, contentType: TWIML, body: ACKNOWLEDGED_CALL });
      expect(await alert(alertId)).toMatchObject({
        acknowledged: true,
        acknowledged_by: { id: admin.accountId, name: 'Olivia Oncall' },
      });
      expect(await instanceState(instanceId)).toBe('acknowledged');
      expect(await acks(alertId)).toEqual([
        {
          channel: 'phone',
          account_id: admin.accountId,
          contact_label: null,
          escalation_instance_id: instanceId,
        },
      ]);
      expect(await ackLedger(alertId)).toEqual([
        {
          account_id: admin.accountId,
          contact_label: null,
          channel: 'phone',
          instance_id: instanceId,
        },
      ]);
    });

    it('a phone contact acknowledges by its label, never its number', async () => {
      const { alertId, instanceId, pageId } = await delivered('phone', {
        label: 'NOC desk',
        number: CONTACT_NUMBER,
      });
      const reply = await twilio.answer(await callFor(pageId), '1', { deliverTo: t.baseUrl });
      expect(reply.body).toBe(ACKNOWLEDGED_CALL);
      const view = await alert(alertId);
      expect(view.acknowledged_by).toEqual({ label: 'NOC desk' });
      expect(JSON.stringify(view)).not.toContain(CONTACT_NUMBER);
      expect(await instanceState(instanceId)).toBe('acknowledged');
    });

    it('any other digit does not acknowledge', async () => {
      const { alertId, instanceId, pageId } = await delivered('phone', {
        accountId: admin.accountId,
      });
      const reply = await twilio.answer(await callFor(pageId), '2', { deliverTo: t.baseUrl });
      expect(reply).toEqual({
        status: 200,
        contentType: TWIML,
        body: '<Response><Say>Not acknowledged. The escalation continues.</Say></Response>',
      });
      expect((await alert(alertId)).acknowledged).toBe(false);
      expect(await instanceState(instanceId)).toBe('active');
    });

    it('a page whose alert or account is gone says so and acknowledges nothing', async () => {
      const gone = '<Response><Say>This page can no longer be acknowledged.</Say></Response>';
      const deleted = await delivered('phone', { accountId: admin.accountId });
      const deletedCall = await callFor(deleted.pageId);
      await db.query('DELETE FROM alert WHERE id = $1', [deleted.alertId]);
      expect(await twilio.answer(deletedCall, '1', { deliverTo: t.baseUrl })).toEqual({
        status: 200,
        contentType: TWIML,
        body: gone,
      });

      const leaver = await addMember(t, t.sink, admin, 'caller@acks.example', 'developer');
      await db.query(
        "UPDATE account SET phone_number = '+4915100000055', phone_verified_at = now() WHERE id = $1",
        [leaver.accountId],
      );
      const orphan = await delivered('phone', { accountId: leaver.accountId });
      const orphanCall = await callFor(orphan.pageId);
      await db.query('DELETE FROM account WHERE id = $1', [leaver.accountId]);
      expect((await twilio.answer(orphanCall, '1', { deliverTo: t.baseUrl })).body).toBe(gone);
      expect(await acks(orphan.alertId)).toEqual([]);
    });

    it('a missing or wrong Twilio signature is 403 and acknowledges nothing', async () => {
      const { alertId, pageId } = await delivered('phone', { accountId: admin.accountId });
      const call = await callFor(pageId);
      for (const signature of ['', 'bogus', twilio.sign('http://localhost:3000/elsewhere', {})]) {
        const reply = await twilio.answer(call, '1', { deliverTo: t.baseUrl, signature });
        expect(reply.status).toBe(403);
        expect(JSON.parse(reply.body)).toMatchObject({ code: 'invalid_webhook_signature' });
      }
      expect(await acks(alertId)).toEqual([]);
    });

    it('an e-mail link token in the callback is refused even when Twilio signed the request', async () => {
      const { alertId } = await delivered('email', { accountId: admin.accountId });
      const token = await linkFor(alertId);
      const forged: TwilioCall = {
        kind: 'call',
        to: ADMIN_NUMBER,
        from: '+15550000000',
        sid: 'CA_forged',
        auth: { username: '', password: '' },
        twiml: `<Response><Gather action="${t.config.publicUrl}/alerts/phone_ack/${token}"></Gather></Response>`,
      };
      const reply = await twilio.answer(forged, '1', { deliverTo: t.baseUrl });
      expect(reply.status).toBe(401);
      expect(JSON.parse(reply.body)).toMatchObject({ code: 'invalid_signed_token' });
      expect(await acks(alertId)).toEqual([]);
    });
  });

  describe('SMS reply', () => {
    it('the reply code from the texted number acknowledges, recorded as sms in the ledger', async () => {
      const { alertId, instanceId } = await delivered(
        'sms',
        { accountId: admin.accountId },
        { replyCode: '640213' },
      );
      await twilio.waitFor(
        (r) => r.kind === 'sms' && r.body.endsWith('Reply 640213 to acknowledge.'),
      );
      const reply = await smsReply(ADMIN_NUMBER, ' 640213\n');
      expect(reply).toEqual({
        status: 200,
        contentType: TWIML,
        body: '<Response><Message>Acknowledged.</Message></Response>',
      });
      expect(await alert(alertId)).toMatchObject({
        acknowledged: true,
        acknowledged_by: { id: admin.accountId, name: 'Olivia Oncall' },
      });
      expect(await instanceState(instanceId)).toBe('acknowledged');
      expect(await acks(alertId)).toEqual([
        {
          channel: 'phone',
          account_id: admin.accountId,
          contact_label: null,
          escalation_instance_id: instanceId,
        },
      ]);
      expect(await ackLedger(alertId)).toEqual([
        {
          account_id: admin.accountId,
          contact_label: null,
          channel: 'sms',
          instance_id: instanceId,
        },
      ]);
    });

    it('a contact replying acknowledges by its label', async () => {
      const { alertId } = await delivered(
        'sms',
        { label: 'NOC desk', number: CONTACT_NUMBER },
        { replyCode: '771209' },
      );
      expect((await smsReply(CONTACT_NUMBER, '771209')).status).toBe(200);
      expect((await alert(alertId)).acknowledged_by).toEqual({ label: 'NOC desk' });
    });

    it('a wrong code, or the right code from another number, acknowledges nothing', async () => {
      const { alertId, instanceId } = await delivered(
        'sms',
        { accountId: admin.accountId },
        { replyCode: '918273' },
      );
      for (const [from, body] of [
        [ADMIN_NUMBER, '918274'],
        [ADMIN_NUMBER, ''],
        [CONTACT_NUMBER, '918273'],
      ]) {
        expect(await smsReply(from, body)).toEqual({
          status: 200,
          contentType: TWIML,
          body: UNKNOWN_CODE,
        });
      }
      expect((await alert(alertId)).acknowledged).toBe(false);
      expect(await instanceState(instanceId)).toBe('active');
    });

    it('a code whose escalation ended and whose alert resolved no longer acknowledges', async () => {
      const { alertId, instanceId } = await delivered(
        'sms',
        { accountId: admin.accountId },
        { replyCode: '505050' },
      );
      await db.query("UPDATE escalation_instance SET state = 'resolved' WHERE id = $1", [
        instanceId,
      ]);
      await db.query("UPDATE alert SET status = 'resolved' WHERE id = $1", [alertId]);
      expect((await smsReply(ADMIN_NUMBER, '505050')).body).toBe(UNKNOWN_CODE);
      expect(await acks(alertId)).toEqual([]);
    });

    it('an unsigned reply is 403', async () => {
      const { alertId } = await delivered(
        'sms',
        { accountId: admin.accountId },
        { replyCode: '123987' },
      );
      const reply = await twilio.receiveSms(
        `${t.config.publicUrl}/alerts/sms_reply`,
        { from: ADMIN_NUMBER, body: '123987' },
        { deliverTo: t.baseUrl, signature: 'bogus' },
      );
      expect(reply.status).toBe(403);
      expect(await acks(alertId)).toEqual([]);
    });
  });

  it('the OpenAPI document describes the public acknowledgement routes', async () => {
    const { paths } = (await t.request().get('/openapi.json').expect(200)).body;
    expect(Object.keys(paths['/alerts/ack/{signed_id}']).sort()).toEqual(['get', 'post']);
    expect(paths['/alerts/phone_ack/{token}'].post.requestBody.content).toHaveProperty(
      'application/x-www-form-urlencoded',
    );
    expect(paths['/alerts/sms_reply'].post.requestBody.content).toHaveProperty(
      'application/x-www-form-urlencoded',
    );
  });

  // Last: it moves the clock a day on.
  it('a link older than the TTL is 401 signed_link_expired', async () => {
    const { alertId } = await delivered('email', { accountId: admin.accountId });
    const token = await linkFor(alertId);
    t.clock.advance({ hours: 24 });
    await t.request().get(`/alerts/ack/${token}`).expect(200);
    t.clock.advance({ seconds: 1 });
    for (const method of ['get', 'post'] as const) {
      const res = await t.request()[method](`/alerts/ack/${token}`).expect(401);
      expect(res.body.code).toBe('signed_link_expired');
    }
    expect(await acks(alertId)).toEqual([]);
  });
});
