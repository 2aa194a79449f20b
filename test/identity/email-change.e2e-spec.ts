import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SecurityNotices } from '@platform/identity';
import { eventually, type ReceivedMail } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import {
  bearer,
  createAccount,
  login,
  PASSWORD,
  type TestAccount,
  tokenFromMail,
} from '../support/identity.js';

const ADDRESS = '198.51.100.23';
const AGENT = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) Safari/605.1.15';
const CONFIRMATION = 'Confirm your new e-mail address';
const NOTICE = 'Your e-mail address was changed';

interface NotificationView {
  category: string;
  event_type: string;
  organization_id: string | null;
  payload: Record<string, unknown>;
}

describe('changing the e-mail address of an account', () => {
  let t: MailingTestApp;
  let n = 0;

  beforeAll(async () => {
    // X-Forwarded-For from the test client names the address a request comes from.
    t = await createMailingApiTestApp({ config: { trustedProxies: ['loopback'] } });
  });

  afterAll(async () => {
    await t?.close();
  });

  const fresh = () => `change-${++n}@email-change.example`;
  const newAccount = () => createAccount(t, t.sink, fresh());

  const requestChange = (who: TestAccount, body: Record<string, unknown>) =>
    t
      .request()
      .put('/accounts/me/email')
      .set(bearer(who.jwt))
      .set('X-Forwarded-For', ADDRESS)
      .set('User-Agent', AGENT)
      .send(body);

  const confirm = (who: TestAccount, token: string) =>
    t
      .request()
      .post('/accounts/me/email/verify')
      .set(bearer(who.jwt))
      .set('X-Forwarded-For', ADDRESS)
      .set('User-Agent', AGENT)
      .send({ token });

  /** Asks to move `who` to `email`; answers the token mailed to the new address. */
  async function changeTo(who: TestAccount, email: string): Promise<string> {
    await requestChange(who, { email, current_password: PASSWORD }).expect(202);
    return tokenFromMail(t.sink, email, 'Confirmation token');
  }

  async function me(who: TestAccount): Promise<Record<string, unknown>> {
    const res = await t.request().get('/accounts/me').set(bearer(who.jwt)).expect(200);
    return res.body.data as Record<string, unknown>;
  }

  async function securityNotifications(jwt: string): Promise<NotificationView[]> {
    await t.get(SecurityNotices).settled();
    const res = await t.request().get('/notifications?limit=100').set(bearer(jwt)).expect(200);
    return (res.body.data as NotificationView[]).filter((x) => x.category === 'security');
  }

  const mailsTo = (address: string): ReceivedMail[] =>
    t.sink.messages.filter((m) => m.to.some((to) => to.toLowerCase() === address.toLowerCase()));

  function expectInvalidToken(res: { status: number; body: Record<string, unknown> }) {
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      code: 'invalid_verification_token',
      source_service: 'identity',
    });
  }

  it('mails a link to the new address, changes the login once it is confirmed, and tells the old address', async () => {
    const ada = await newAccount();
    const oldAddress = ada.login;
    const newAddress = fresh();
    const requested = await requestChange(ada, {
      email: newAddress,
      current_password: PASSWORD,
    }).expect(202);
    const expiresAt = new Date(t.clock.nowMs() + 24 * 3600_000).toISOString();
    expect(requested.body.data).toEqual({ email: newAddress, expires_at: expiresAt });

    // Nothing changes before the link is opened.
    expect(await me(ada)).toMatchObject({ login: oldAddress });
    const mail = await t.sink.waitFor(
      (m) => m.to.includes(newAddress) && m.subject === CONFIRMATION,
    );
    const token = /Confirmation token: (\S+)/.exec(mail.text)![1];
    expect(mail.text).toContain(
      `${t.config.publicUrl}/accounts/me/email/verify?token=${encodeURIComponent(token)}`,
    );
    expect(mail.text).toContain('valid for 24 hours');

    t.clock.advance({ minutes: 5 });
    const confirmed = await confirm(ada, token).expect(200);
    expect(confirmed.body.data).toEqual({ email: newAddress, email_verified: true });
    const after = await me(ada);
    expect(after).toMatchObject({ login: newAddress });
    expect(after.email_verified_at).toBe(t.clock.now().toISOString());

    // The session that changed it goes on; the new address is the login, the old one is not.
    await login(t, newAddress);
    const oldLogin = await t
      .request()
      .post('/login')
      .send({ login: oldAddress, password: PASSWORD })
      .expect(401);
    expect(oldLogin.body.code).toBe('invalid_credentials');

    const notices = await eventually(
      () => securityNotifications(ada.jwt),
      (list) => list.some((x) => x.event_type === 'email_changed'),
      'the email_changed notification',
    );
    const notice = notices.find((x) => x.event_type === 'email_changed')!;
    expect(notice).toMatchObject({
      category: 'security',
      event_type: 'email_changed',
      organization_id: null,
    });
    expect(notice.payload).toEqual({
      event: 'email_changed',
      occurred_at: t.clock.now().toISOString(),
      address: ADDRESS,
      user_agent: AGENT,
      link: `${t.config.publicUrl}/accounts/me`,
      previous_email: oldAddress,
      email: newAddress,
    });
    const told = await t.sink.waitFor((m) => m.to.includes(oldAddress) && m.subject === NOTICE);
    expect(told.to).toEqual([oldAddress]);
    expect(told.text).toContain(`From: ${ADDRESS} (${AGENT})`);
    expect(told.text).toContain(`email: ${newAddress}`);
    expect(told.text).toContain('password reset links now go to the new address');
    const seen = JSON.stringify(notice) + told.subject + told.text + (told.html ?? '');
    expect(seen).not.toContain(token);
    expect(seen).not.toContain(encodeURIComponent(token));
    expect(mailsTo(newAddress).map((m) => m.subject)).toEqual([CONFIRMATION]);

    const audit = await t
      .get(DataSource)
      .query(
        `SELECT organization_id, actor_account_id, target_type, target_id, details FROM audit_log WHERE action = 'accounts.email_change' AND target_id = $1`,
        [ada.accountId],
      );
    expect(audit).toEqual([
      {
        organization_id: ada.organizationId,
        actor_account_id: ada.accountId,
        target_type: 'account',
        target_id: ada.accountId,
        details: { previous_email: oldAddress, email: newAddress },
      },
    ]);
  });

  it('refuses a wrong current password with the password change route’s 422, and stores nothing', async () => {
    const bo = await newAccount();
    const res = await requestChange(bo, {
      email: fresh(),
      current_password: 'not the password at all',
    }).expect(422);
    expect(res.body).toMatchObject({ code: 'validation_failed', source_service: 'identity' });
    expect(res.body.details.fields).toEqual([
      {
        field: 'current_password',
        messages: ['current_password is not the password of this account'],
      },
    ]);
    const none = await t.request().delete('/accounts/me/email/pending').set(bearer(bo.jwt));
    expect(none.status).toBe(404);
    expect(none.body.code).toBe('not_found');
  });

  it('refuses an invalid address, naming the field, and the account’s own address', async () => {
    const cy = await newAccount();
    for (const email of ['not-an-address', '', 42, `${'a'.repeat(250)}@x.example`]) {
      const res = await requestChange(cy, { email, current_password: PASSWORD }).expect(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.fields.map((f: { field: string }) => f.field)).toEqual(['email']);
    }
    const missing = await requestChange(cy, { email: fresh() }).expect(422);
    expect(missing.body.details.fields.map((f: { field: string }) => f.field)).toEqual([
      'current_password',
    ]);
    const own = await requestChange(cy, { email: cy.login, current_password: PASSWORD }).expect(
      422,
    );
    expect(own.body.details.fields).toEqual([
      { field: 'email', messages: ['email is the address of this account already'] },
    ]);
    await t.request().delete('/accounts/me/email/pending').set(bearer(cy.jwt)).expect(404);
  });

  it('refuses an address another account has, with the sign-up code, in any spelling', async () => {
    const di = await newAccount();
    const other = await newAccount();
    for (const email of [other.login, other.login.toUpperCase()]) {
      const res = await requestChange(di, { email, current_password: PASSWORD }).expect(409);
      expect(res.body).toMatchObject({ code: 'login_taken', source_service: 'identity' });
    }
    expect(mailsTo(other.login).filter((m) => m.subject === CONFIRMATION)).toEqual([]);
  });

  it('counts confirmation e-mails to one address: the fourth in an hour is refused', async () => {
    const na = await newAccount();
    const wanted = fresh();
    for (let attempt = 0; attempt < 3; attempt++)
      await requestChange(na, { email: wanted, current_password: PASSWORD }).expect(202);
    const res = await requestChange(na, { email: wanted, current_password: PASSWORD }).expect(429);
    expect(res.body.code).toBe('rate_limited');
    expect(res.headers['retry-after']).toBeDefined();
    // The three accepted requests each mailed the address (the worker sends them): three
    // arrive, and the refused fourth adds none while the test waits a moment longer.
    await eventually(
      () => mailsTo(wanted),
      (mails) => mails.length >= 3,
      'three confirmation e-mails',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mailsTo(wanted)).toHaveLength(3);
  });

  it('refuses the confirmation when the address was taken meanwhile, and changes nothing', async () => {
    const ed = await newAccount();
    const wanted = fresh();
    const token = await changeTo(ed, wanted);
    const taker = await createAccount(t, t.sink, wanted);

    const res = await confirm(ed, token).expect(409);
    expect(res.body.code).toBe('login_taken');
    expect(await me(ed)).toMatchObject({ login: ed.login });
    expect(await me(taker)).toMatchObject({ login: wanted });
    // The change is still pending: the owner cancels it.
    await t.request().delete('/accounts/me/email/pending').set(bearer(ed.jwt)).expect(204);
  });

  it('refuses an expired link (24 hours, on the injected clock)', async () => {
    const fi = await newAccount();
    const token = await changeTo(fi, fresh());
    t.clock.advance({ hours: 24 });
    // A session lasts 12 hours: a new one, with the link a day old.
    const later = { ...fi, jwt: await login(t, fi.login) };
    expectInvalidToken(await confirm(later, token));
    expect(await me(later)).toMatchObject({ login: fi.login });
    // An expired change is no pending change.
    await t.request().delete('/accounts/me/email/pending').set(bearer(later.jwt)).expect(404);
  });

  it('refuses a link used once already', async () => {
    const gu = await newAccount();
    const wanted = fresh();
    const token = await changeTo(gu, wanted);
    await confirm(gu, token).expect(200);
    expectInvalidToken(await confirm(gu, token));
    expect(await me(gu)).toMatchObject({ login: wanted });
  });

  it('replaces a pending change: the earlier link stops working', async () => {
    const ha = await newAccount();
    const first = fresh();
    const second = fresh();
    const firstToken = await changeTo(ha, first);
    const secondToken = await changeTo(ha, second);
    expectInvalidToken(await confirm(ha, firstToken));
    const res = await confirm(ha, secondToken).expect(200);
    expect(res.body.data).toEqual({ email: second, email_verified: true });
  });

  it('cancels a pending change: 204, then its link is refused and there is nothing to cancel', async () => {
    const io = await newAccount();
    const token = await changeTo(io, fresh());
    const cancelled = await t.request().delete('/accounts/me/email/pending').set(bearer(io.jwt));
    expect(cancelled.status).toBe(204);
    expect(cancelled.text).toBe('');
    expectInvalidToken(await confirm(io, token));
    await t.request().delete('/accounts/me/email/pending').set(bearer(io.jwt)).expect(404);
    expect(await me(io)).toMatchObject({ login: io.login });
  });

  it("does not confirm another account's change with its token", async () => {
    const jo = await newAccount();
    const ka = await newAccount();
    const wanted = fresh();
    const kaToken = await changeTo(ka, wanted);
    await changeTo(jo, fresh());

    expectInvalidToken(await confirm(jo, kaToken));
    expect(await me(jo)).toMatchObject({ login: jo.login });
    expect(await me(ka)).toMatchObject({ login: ka.login });
    // The token still works for the account that asked.
    await confirm(ka, kaToken).expect(200);
    expect(await me(ka)).toMatchObject({ login: wanted });
  });

  it('confirms through the link opened in a signed-in browser, answering a page', async () => {
    const lu = await newAccount();
    const wanted = fresh();
    const token = await changeTo(lu, wanted);
    const link = `/accounts/me/email/verify?token=${encodeURIComponent(token)}`;

    const page = await t
      .request()
      .get(link)
      .set(bearer(lu.jwt))
      .set('Accept', 'text/html')
      .expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.text).toContain('E-mail address changed');
    expect(await me(lu)).toMatchObject({ login: wanted });

    const again = await t
      .request()
      .get(link)
      .set(bearer(lu.jwt))
      .set('Accept', 'text/html')
      .expect(422);
    expect(again.text).toContain('This link does not work');
    const json = await t
      .request()
      .get(link)
      .set(bearer(lu.jwt))
      .set('Accept', 'application/json')
      .expect(422);
    expect(json.body.code).toBe('invalid_verification_token');
    // Without a session the link changes nothing (a mail scanner opening it, say).
    await t.request().get(link).expect(401);
    // Without its token the JSON answer names the parameter, as every query parameter does.
    const missing = await t
      .request()
      .get('/accounts/me/email/verify')
      .set(bearer(lu.jwt))
      .set('Accept', 'application/json')
      .expect(422);
    expect(missing.body.code).toBe('validation_failed');
    expect(missing.body.details.fields).toEqual([
      { field: 'token', messages: ['token should not be empty'] },
    ]);
  });

  it('stops a reset link mailed to the old address from working', async () => {
    const mo = await newAccount();
    await t.request().post('/password-reset').send({ login: mo.login }).expect(202);
    const resetToken = await tokenFromMail(t.sink, mo.login, 'Reset token');
    await confirm(mo, await changeTo(mo, fresh())).expect(200);
    const res = await t
      .request()
      .post('/password-reset/confirm')
      .send({
        token: resetToken,
        password: 'a new long passphrase',
        'password-confirm': 'a new long passphrase',
      })
      .expect(422);
    expect(res.body.code).toBe('invalid_reset_token');
  });
});
