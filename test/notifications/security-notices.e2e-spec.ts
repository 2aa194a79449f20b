import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SecurityNotices } from '@platform/identity';
import { eventually, FakeTwilio, type ReceivedMail, type TwilioRequest } from '@platform/testing';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import {
  addMember,
  bearer,
  createAccount,
  login,
  mintToken,
  PASSWORD,
  type TestAccount,
  tokenFromMail,
} from '../support/identity.js';

const ADDRESS = '203.0.113.7';
const AGENT = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0';

interface NotificationView {
  id: string;
  category: string;
  event_type: string;
  organization_id: string | null;
  payload: Record<string, unknown>;
}

describe('security notifications', () => {
  let t: MailingTestApp;
  let n = 0;
  let publicUrl: string;
  let twilio: FakeTwilio;

  beforeAll(async () => {
    twilio = await FakeTwilio.start({ accountSid: 'AC_test', authToken: 'secret' });
    // X-Forwarded-For from the test client names the address a login comes from.
    t = await createMailingApiTestApp({
      config: {
        trustedProxies: ['loopback'],
        phone: {
          apiUrl: twilio.url,
          accountSid: 'AC_test',
          authToken: 'secret',
          from: '+15550000000',
        },
      },
    });
    publicUrl = t.config.publicUrl;
  });

  afterAll(async () => {
    await t?.close();
    await twilio?.close();
  });

  const newAccount = () => createAccount(t, t.sink, `sec-${++n}@security.example`);

  /** A login from `address` with `agent`; answers the session JWT. */
  async function loginFrom(who: TestAccount, address = ADDRESS, agent = AGENT): Promise<string> {
    const res = await t
      .request()
      .post('/login')
      .set('X-Forwarded-For', address)
      .set('User-Agent', agent)
      .send({ login: who.login, password: who.password })
      .expect(200);
    return res.headers.authorization.replace(/^Bearer /, '');
  }

  async function securityNotifications(jwt: string): Promise<NotificationView[]> {
    await t.get(SecurityNotices).settled();
    const res = await t.request().get('/notifications?limit=100').set(bearer(jwt)).expect(200);
    return (res.body.data as NotificationView[]).filter((x) => x.category === 'security');
  }

  /** Waits for the account's `count`-th security notification; answers them newest first. */
  const notified = (jwt: string, count: number) =>
    eventually(
      () => securityNotifications(jwt),
      (list) => list.length >= count,
      `${count} security notification(s)`,
    );

  const mailTo = (who: TestAccount, subject: string): Promise<ReceivedMail> =>
    t.sink.waitFor((m) => m.to.includes(who.login) && m.subject === subject);

  /** Neither the notification nor the e-mail holds any of the secrets. */
  function expectNoSecret(notification: NotificationView, mail: ReceivedMail, secrets: string[]) {
    const seen = JSON.stringify(notification) + mail.subject + mail.text + (mail.html ?? '');
    for (const secret of secrets) expect(seen).not.toContain(secret);
  }

  const origin = (address = ADDRESS, agent = AGENT) => ({ address, user_agent: agent });

  it('tells nothing on the first login, then a login from a new address or browser', async () => {
    const ada = await newAccount();
    // createAccount logged in once (from the test client itself); that origin is known now.
    await login(t, ada.login);
    const jwt = await loginFrom(ada);
    const [notice] = await notified(jwt, 1);
    expect(notice).toMatchObject({
      category: 'security',
      event_type: 'login_from_new_origin',
      organization_id: null,
    });
    expect(notice.payload).toEqual({
      event: 'login_from_new_origin',
      occurred_at: t.clock.now().toISOString(),
      ...origin(),
      link: `${publicUrl}/password-reset`,
      new_address: true,
      new_user_agent: true,
    });
    const mail = await mailTo(ada, 'New sign-in to your account');
    expect(mail.text).toContain(`From: ${ADDRESS} (${AGENT})`);
    expectNoSecret(notice, mail, [PASSWORD, jwt]);

    // The same origin again is known; a new browser from the same address is not.
    await loginFrom(ada);
    t.clock.advance({ seconds: 1 });
    const jwt2 = await loginFrom(ada, ADDRESS, 'curl/8.9');
    const list = await notified(jwt2, 2);
    expect(list).toHaveLength(2);
    expect(list[0].payload).toMatchObject({
      ...origin(ADDRESS, 'curl/8.9'),
      new_address: false,
      new_user_agent: true,
    });
  });

  it('forgets origins after 90 days', async () => {
    const bo = await newAccount();
    const first = await loginFrom(bo);
    await notified(first, 1);
    t.clock.advance({ days: 89 });
    expect(await securityNotifications(await loginFrom(bo))).toHaveLength(1);
    t.clock.advance({ days: 91 });
    const jwt = await loginFrom(bo);
    const list = await notified(jwt, 2);
    expect(list[0].payload).toMatchObject({ new_address: true, new_user_agent: true });
  });

  it('tells a password change and a reset, without the passwords or the reset token', async () => {
    const cy = await newAccount();
    const newPassword = 'another long passphrase';
    const changed = await t
      .request()
      .post('/accounts/me/password')
      .set(bearer(cy.jwt))
      .set('X-Forwarded-For', ADDRESS)
      .set('User-Agent', AGENT)
      .send({ current_password: PASSWORD, password: newPassword, 'password-confirm': newPassword })
      .expect(200);
    const jwt = changed.headers.authorization.replace(/^Bearer /, '');
    const [notice] = await notified(jwt, 1);
    expect(notice.event_type).toBe('password_changed');
    expect(notice.payload).toEqual({
      event: 'password_changed',
      occurred_at: t.clock.now().toISOString(),
      ...origin(),
      link: `${publicUrl}/password-reset`,
    });
    const mail = await mailTo(cy, 'Your password was changed');
    expectNoSecret(notice, mail, [PASSWORD, newPassword, jwt]);

    await t.request().post('/password-reset').send({ login: cy.login }).expect(202);
    const resetToken = await tokenFromMail(t.sink, cy.login, 'Reset token');
    const finalPassword = 'yet another passphrase';
    await t
      .request()
      .post('/password-reset/confirm')
      .set('X-Forwarded-For', ADDRESS)
      .set('User-Agent', AGENT)
      .send({ token: resetToken, password: finalPassword, 'password-confirm': finalPassword })
      .expect(200);
    const after = await login(t, cy.login, finalPassword);
    const list = await notified(after, 2);
    const reset = list.find((x) => x.event_type === 'password_reset')!;
    expect(reset.payload).toEqual({
      event: 'password_reset',
      occurred_at: t.clock.now().toISOString(),
      ...origin(),
      link: `${publicUrl}/password-reset`,
    });
    const resetMail = await mailTo(cy, 'Your password was reset');
    expectNoSecret(reset, resetMail, [resetToken, finalPassword, newPassword]);
  });

  it('tells the owner that a token was created and revoked, never its value', async () => {
    const di = await newAccount();
    const minted = await t
      .request()
      .post(`/tokens?organization_id=${di.organizationId}`)
      .set(bearer(di.jwt))
      .set('X-Forwarded-For', ADDRESS)
      .set('User-Agent', AGENT)
      .send({ token: { name: 'deploy', scopes: ['projects:read'] } })
      .expect(201);
    const raw = minted.body.data.token as string;
    const [created] = await notified(di.jwt, 1);
    const tokens = await t
      .request()
      .get(`/tokens?organization_id=${di.organizationId}`)
      .set(bearer(di.jwt))
      .expect(200);
    const tokenId = tokens.body.data[0].token_id as string;
    expect(created).toMatchObject({
      event_type: 'token_created',
      organization_id: di.organizationId,
    });
    const tokenFacts = {
      token_id: tokenId,
      token_name: 'deploy',
      kind: 'api',
      actor_id: di.accountId,
    };
    const link = `${publicUrl}/tokens?organization_id=${di.organizationId}`;
    expect(created.payload).toEqual({
      event: 'token_created',
      occurred_at: t.clock.now().toISOString(),
      ...origin(),
      link,
      ...tokenFacts,
    });
    expectNoSecret(created, await mailTo(di, 'An API token was created'), [raw]);

    t.clock.advance({ seconds: 1 });
    await t
      .request()
      .delete(`/tokens/${tokenId}?organization_id=${di.organizationId}`)
      .set(bearer(di.jwt))
      .set('X-Forwarded-For', ADDRESS)
      .set('User-Agent', AGENT)
      .expect(204);
    const list = await notified(di.jwt, 2);
    expect(list[0].event_type).toBe('token_revoked');
    expect(list[0].payload).toEqual({
      event: 'token_revoked',
      occurred_at: t.clock.now().toISOString(),
      ...origin(),
      link,
      ...tokenFacts,
    });
    expectNoSecret(list[0], await mailTo(di, 'An API token was revoked'), [raw]);
  });

  it("tells the member and the organization's admins of a role change", async () => {
    const admin = await newAccount();
    const member = await addMember(t, t.sink, admin, `member-${n}@security.example`, 'viewer');
    const me = await t.request().get('/accounts/me').set(bearer(member.jwt)).expect(200);
    const membershipId = me.body.data.memberships[0].id as string;
    await t
      .request()
      .patch(`/memberships/${membershipId}?organization_id=${admin.organizationId}`)
      .set(bearer(admin.jwt))
      .set('X-Forwarded-For', ADDRESS)
      .set('User-Agent', AGENT)
      .send({ role: 'developer' })
      .expect(200);
    const expected = {
      event: 'membership_role_changed',
      occurred_at: t.clock.now().toISOString(),
      ...origin(),
      link: `${publicUrl}/memberships/${membershipId}?organization_id=${admin.organizationId}`,
      membership_id: membershipId,
      member_account_id: member.accountId,
      role_before: 'viewer',
      role_after: 'developer',
      actor_id: admin.accountId,
    };
    for (const who of [member, admin]) {
      const [notice] = (await notified(who.jwt, 1)).filter(
        (x) => x.event_type === 'membership_role_changed',
      );
      expect(notice).toMatchObject({ organization_id: admin.organizationId });
      expect(notice.payload).toEqual(expected);
    }
    // Permissions alone changing is no role change.
    await t
      .request()
      .patch(`/memberships/${membershipId}?organization_id=${admin.organizationId}`)
      .set(bearer(admin.jwt))
      .send({ permissions: { projects: ['read'] } })
      .expect(200);
    await t.get(SecurityNotices).settled();
    const roleChanges = (await notified(member.jwt, 1)).filter(
      (x) => x.event_type === 'membership_role_changed',
    );
    expect(roleChanges).toHaveLength(1);
  });

  it('tells once that concurrent failed logins locked the account', async () => {
    const ed = await newAccount();
    const wrong = 'not the password at all';
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        t
          .request()
          .post('/login')
          .set('X-Forwarded-For', ADDRESS)
          .set('User-Agent', AGENT)
          .send({ login: ed.login, password: wrong }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    const [locked] = await notified(ed.jwt, 1);
    expect(locked.payload).toEqual({
      event: 'account_locked',
      occurred_at: t.clock.now().toISOString(),
      ...origin(),
      link: `${publicUrl}/password-reset`,
      failed_attempts: 5,
      window_minutes: 15,
    });
    expectNoSecret(locked, await mailTo(ed, 'Sign-ins to your account are blocked for a while'), [
      wrong,
    ]);
    await t.get(SecurityNotices).settled();
    expect(await securityNotifications(ed.jwt)).toHaveLength(1);
  });

  it('keeps in-app security notices for an admin who turned them off, not for a member', async () => {
    const admin = await newAccount();
    const member = await addMember(t, t.sink, admin, `quiet-${n}@security.example`, 'viewer');
    for (const who of [admin, member]) {
      await t
        .request()
        .patch('/notification_preferences')
        .set(bearer(who.jwt))
        .send({ preferences: [{ category_key: 'security', channel: 'in_app', enabled: false }] })
        .expect(200);
      await mintToken(t, who.jwt, ['projects:read']);
    }
    // Both are e-mailed; only the admin's in-app row is forced on (mandatory for admins).
    await mailTo(member, 'An API token was created');
    await mailTo(admin, 'An API token was created');
    expect((await notified(admin.jwt, 1)).map((x) => x.event_type)).toEqual(['token_created']);
    expect(await securityNotifications(member.jwt)).toEqual([]);
  });

  it('tells a verified new phone number and its removal, never the code', async () => {
    const fy = await newAccount();
    const number = '+4915123450042';
    await t
      .request()
      .put('/accounts/me/phone')
      .set(bearer(fy.jwt))
      .send({ phone_number: number })
      .expect(202);
    const sms = await twilio.waitFor((r) => r.kind === 'sms' && r.to === number);
    const code = /\b(\d{6})\b/.exec((sms as Extract<TwilioRequest, { kind: 'sms' }>).body)![1];
    await t
      .request()
      .post('/accounts/me/phone/verify')
      .set(bearer(fy.jwt))
      .set('X-Forwarded-For', ADDRESS)
      .set('User-Agent', AGENT)
      .send({ code })
      .expect(200);
    const [changed] = await notified(fy.jwt, 1);
    expect(changed.payload).toEqual({
      event: 'phone_changed',
      occurred_at: t.clock.now().toISOString(),
      ...origin(),
      link: `${publicUrl}/accounts/me`,
      phone_number_ending: '0042',
    });
    expectNoSecret(changed, await mailTo(fy, 'Your phone number was changed'), [code]);

    t.clock.advance({ seconds: 1 });
    await t.request().delete('/accounts/me/phone').set(bearer(fy.jwt)).expect(204);
    const list = await notified(fy.jwt, 2);
    expect(list[0].event_type).toBe('phone_removed');
    // Removing no number tells nothing.
    await t.request().delete('/accounts/me/phone').set(bearer(fy.jwt)).expect(204);
    expect(await securityNotifications(fy.jwt)).toHaveLength(2);
  });
});
