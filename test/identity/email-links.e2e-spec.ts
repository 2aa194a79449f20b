import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { PasswordResetService } from '@platform/identity';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import {
  bearer,
  createAccount,
  login,
  PASSWORD,
  signupBody,
  tokenFromMail,
  type TestAccount,
} from '../support/identity.js';

const NEW_PASSWORD = 'the password after the reset';
const PUBLIC_URL = 'https://console.example.com';

/** A page that loads nothing from anywhere: no script, image, stylesheet or frame source. */
function expectSelfContainedPage(res: { headers: Record<string, string>; text: string }): void {
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  expect(res.text).toMatch(/^<!doctype html>/);
  expect(res.text).not.toMatch(/<script|<link|<img|<iframe|\bsrc=|https?:\/\//i);
}

describe('links in e-mails', () => {
  let t: MailingTestApp;

  beforeAll(async () => {
    t = await createMailingApiTestApp({ config: { publicUrl: PUBLIC_URL } });
  });

  afterAll(async () => {
    await t.close();
  });

  describe('GET /verify-email (the verification e-mail link)', () => {
    async function signUp(email: string): Promise<{ link: string; token: string }> {
      await t
        .request()
        .post('/create-account')
        .send(await signupBody(t, { login: email, organization_name: email }))
        .expect(201);
      const token = await tokenFromMail(t.sink, email, 'Verification token');
      const mail = t.sink.messages.find((m) => m.to.includes(email))!;
      const link = /(\S+\/verify-email\?token=\S+)/.exec(mail.text)![1];
      return { link, token };
    }

    it('is the link the e-mail carries, under PUBLIC_URL', async () => {
      const { link, token } = await signUp('link@example.com');
      expect(link).toBe(`${PUBLIC_URL}/verify-email?token=${encodeURIComponent(token)}`);
    });

    it('verifies when opened and answers a short page; a second opening explains why not', async () => {
      const { link } = await signUp('browser@example.com');
      const path = link.slice(PUBLIC_URL.length);
      await t
        .request()
        .post('/login')
        .send({ login: 'browser@example.com', password: PASSWORD })
        .expect(403);

      const res = await t.request().get(path).set('Accept', 'text/html,*/*;q=0.8').expect(200);
      expectSelfContainedPage(res);
      expect(res.text).toContain('E-mail address verified');
      await login(t, 'browser@example.com');

      const again = await t.request().get(path).expect(422);
      expectSelfContainedPage(again);
      expect(again.text).toContain('This link does not work');
    });

    it('answers the JSON envelope to Accept: application/json', async () => {
      const { token } = await signUp('client@example.com');
      const path = `/verify-email?token=${encodeURIComponent(token)}`;
      const res = await t.request().get(path).set('Accept', 'application/json').expect(200);
      expect(res.body).toEqual({
        metadata: { organization_id: null, timestamp: expect.any(String) },
        data: { verified: true },
      });
      const again = await t.request().get(path).set('Accept', 'application/json').expect(422);
      expect(again.body).toMatchObject({
        code: 'invalid_verification_token',
        source_operation: 'signup.verifyEmailLink',
      });
      for (const query of ['', '?token=', '?token=a&token=b']) {
        const missing = await t
          .request()
          .get(`/verify-email${query}`)
          .set('Accept', 'application/json')
          .expect(422);
        expect(missing.body).toMatchObject({
          code: 'validation_failed',
          message: 'Validation failed: token should not be empty',
          source_operation: 'signup.verifyEmailLink',
          details: { fields: [{ field: 'token', messages: ['token should not be empty'] }] },
        });
      }
    });

    it('answers a browser without a token the page of a link that does not work', async () => {
      const res = await t.request().get('/verify-email').expect(422);
      expectSelfContainedPage(res);
      expect(res.text).toContain('This link does not work');
    });
  });

  describe('password reset', () => {
    let ada: TestAccount;
    const resets = () => t.get(PasswordResetService);

    beforeAll(async () => {
      ada = await createAccount(t, t.sink, 'ada@example.com');
    });

    // Three reset e-mails an hour per login (RATE_LIMITS.passwordResetPerLogin): each test
    // starts an hour after the last.
    beforeEach(() => {
      t.clock.advance({ hours: 1 });
    });

    async function requestReset(loginName: string) {
      const res = await t.request().post('/password-reset').send({ login: loginName }).expect(202);
      await resets().settled();
      return res;
    }

    const resetMails = (to: string) =>
      t.sink.messages.filter((m) => m.subject === 'Reset your password' && m.to.includes(to));

    async function resetToken(to: string): Promise<string> {
      const before = resetMails(to).length;
      await t.sink.waitFor(() => resetMails(to).length > before);
      return /Reset token: (\S+)/.exec(resetMails(to).at(-1)!.text)![1];
    }

    /** Requests a reset for `loginName` and answers the token of the e-mail it sends. */
    async function newResetToken(loginName: string): Promise<string> {
      const mailed = resetToken(loginName);
      await requestReset(loginName);
      return mailed;
    }

    const confirm = (token: string, password = NEW_PASSWORD) =>
      t
        .request()
        .post('/password-reset/confirm')
        .send({ token, password, 'password-confirm': password });

    it('answers 202 alike for an unknown login and mails nothing to it', async () => {
      const unknown = await requestReset('nobody@example.com');
      const mailed = resetToken(ada.login);
      const known = await requestReset(ada.login);
      expect(unknown.body.data).toEqual(known.body.data);
      expect(unknown.body.data.success).toMatch(/If an account with this login exists/);
      await mailed;
      expect(t.sink.messages.filter((m) => m.to.includes('nobody@example.com'))).toEqual([]);
      const invalid = await t.request().post('/password-reset').send({}).expect(422);
      expect(invalid.body.code).toBe('validation_failed');
    });

    it('mails a link to a page with a form that posts the token back', async () => {
      const token = await newResetToken(ada.login);
      const mail = resetMails(ada.login).at(-1)!;
      const link = `${PUBLIC_URL}/password-reset?token=${encodeURIComponent(token)}`;
      expect(mail.text).toContain(link);
      expect(mail.text).toContain('valid for 60 minutes and can be used once');

      const res = await t.request().get(link.slice(PUBLIC_URL.length)).expect(200);
      expectSelfContainedPage(res);
      expect(res.headers['content-security-policy']).toContain("form-action 'self'");
      expect(res.text).toContain('<form method="post" action="password-reset/confirm">');
      expect(res.text).toContain(`<input type="hidden" name="token" value="${token}">`);
      const hostile = await t.request().get('/password-reset?token=%22%3E%3Cscript%3E').expect(200);
      expect(hostile.text).toContain('value="&quot;&gt;&lt;script&gt;"');
    });

    it('sets the password once, ends every session, and verifies the address', async () => {
      const other = await login(t, ada.login);
      const token = await newResetToken(ada.login);

      const res = await confirm(token).expect(200);
      expect(res.body.data.success).toMatch(/every session of your account has ended/);
      for (const jwt of [ada.jwt, other]) {
        const refused = await t.request().get('/accounts/me').set(bearer(jwt)).expect(401);
        expect(refused.body.code).toBe('unauthorized');
      }
      await t.request().post('/login').send({ login: ada.login, password: PASSWORD }).expect(401);
      const fresh = await login(t, ada.login, NEW_PASSWORD);
      await t.request().get('/accounts/me').set(bearer(fresh)).expect(200);

      const reused = await confirm(token, 'yet another new password').expect(410);
      expect(reused.body).toMatchObject({ code: 'reset_token_used', source_service: 'identity' });
      await login(t, ada.login, NEW_PASSWORD);

      const audit = await t.get(DataSource).query(
        `SELECT organization_id, actor_account_id, credential_kind, target_type, target_id
             FROM audit_log WHERE action = 'passwords.reset'`,
      );
      expect(audit).toEqual([
        {
          organization_id: ada.organizationId,
          actor_account_id: ada.accountId,
          credential_kind: null,
          target_type: 'account',
          target_id: ada.accountId,
        },
      ]);
    });

    it('lets only the newest link work, for an hour', async () => {
      const replaced = await newResetToken(ada.login);
      const newest = await newResetToken(ada.login);

      const stale = await confirm(replaced).expect(422);
      expect(stale.body.code).toBe('invalid_reset_token');
      const unknown = await confirm('no-such-token').expect(422);
      expect(unknown.body.code).toBe('invalid_reset_token');

      const start = t.clock.now();
      t.clock.advance({ minutes: 61 });
      try {
        const expired = await confirm(newest).expect(410);
        expect(expired.body.code).toBe('reset_token_expired');
      } finally {
        t.clock.set(start);
      }
      await login(t, ada.login, NEW_PASSWORD);
      const third = await newResetToken(ada.login);
      t.clock.advance({ minutes: 59 });
      await confirm(third, PASSWORD).expect(200);
      await login(t, ada.login, PASSWORD);
    });

    it('verifies an unverified address, and forgives the failed logins of the account', async () => {
      await t
        .request()
        .post('/create-account')
        .send(await signupBody(t, { login: 'late@example.com', organization_name: 'Late' }))
        .expect(201);
      for (let i = 0; i < 5; i += 1) {
        await t
          .request()
          .post('/login')
          .send({ login: 'late@example.com', password: 'a wrong password' })
          .expect(401);
      }
      await confirm(await newResetToken('late@example.com')).expect(200);
      await login(t, 'late@example.com', NEW_PASSWORD);
    });

    it('answers the form post of the page with a page', async () => {
      const token = await newResetToken(ada.login);
      const form = { token, password: NEW_PASSWORD, 'password-confirm': NEW_PASSWORD };
      const accept = 'text/html,application/xhtml+xml,*/*;q=0.8';
      const res = await t
        .request()
        .post('/password-reset/confirm')
        .type('form')
        .set('Accept', accept)
        .send(form)
        .expect(200);
      expectSelfContainedPage(res);
      expect(res.text).toContain('Password changed');
      const again = await t
        .request()
        .post('/password-reset/confirm')
        .type('form')
        .set('Accept', accept)
        .send(form)
        .expect(410);
      expectSelfContainedPage(again);
      expect(again.text).toContain('The reset link was already used');
    });
  });
});
