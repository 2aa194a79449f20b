import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SmtpSink } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import {
  bearer,
  createAccount,
  login,
  mintToken,
  PASSWORD,
  signupBody,
  type TestAccount,
  tokenFromMail,
} from '../support/identity.js';

const ATTACKER_PASSWORD = 'the attacker chose this one';
const VICTIM_PASSWORD = 'the victim chose this one';

/**
 * Invitations are bound to the invited address: accepting needs a session of that address, or
 * signing up through the invitation, which proves the address by the mailed token. The
 * pre-account takeover (registering a victim's address and waiting for an invitation to it)
 * hands the attacker nothing.
 */
describe('invitations bound to the invited address', () => {
  let t: MailingTestApp;
  let sink: SmtpSink;
  let db: DataSource;
  let n = 0;

  const email = (label: string): string => `${label}-${++n}@binding.example.com`;

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    sink = t.sink;
    db = t.get(DataSource);
  });

  afterAll(async () => {
    await t.close();
  });

  const invited = async (admin: TestAccount, to: string, role = 'developer'): Promise<string> => {
    await t
      .request()
      .post(`/invitations?organization_id=${admin.organizationId}`)
      .set(bearer(admin.jwt))
      .send({ email: to, role })
      .expect(201);
    return tokenFromMail(sink, to, 'Invitation token');
  };

  const accept = (token: string) => t.request().patch(`/invite/${token}/accept`);

  const membershipsOf = (organizationId: string): Promise<Array<{ account_id: string }>> =>
    db.query('SELECT account_id FROM membership WHERE organization_id = $1', [organizationId]);

  const pending = async (token: string): Promise<boolean> =>
    (await t.request().get(`/invite/${token}`)).status === 200;

  const expectRefusal = (
    res: { status: number; body: { code: string } },
    status: number,
    code: string,
  ) => expect({ status: res.status, code: res.body.code }).toEqual({ status, code });

  describe('the pre-account takeover', () => {
    it('gives the squatted registration to the invitee, and the attacker nothing', async () => {
      const admin = await createAccount(t, sink, email('admin'), 'Target Org');
      const victim = email('victim');
      // The attacker registers the victim's address with a password of its own.
      await t
        .request()
        .post('/create-account')
        .send(
          await signupBody(t, {
            login: victim,
            name: 'Mallory',
            password: ATTACKER_PASSWORD,
            'password-confirm': ATTACKER_PASSWORD,
            organization_name: 'Squat Org',
          }),
        )
        .expect(201);
      const [squat] = await db.query<Array<{ id: string }>>(
        'SELECT id FROM account WHERE login = $1',
        [victim],
      );

      // The victim is invited; the mail (and the squatter's verification mail) reach only the victim.
      const token = await invited(admin, victim, 'developer');
      const shown = await t.request().get(`/invite/${token}`).expect(200);
      expect(shown.body.data.account_exists).toBe(false);

      // Accepting without signing up (what handed the squatter the role before) gives nothing.
      const bare = await accept(token);
      expectRefusal(bare, 422, 'validation_failed');
      expect(await membershipsOf(admin.organizationId)).toEqual([{ account_id: admin.accountId }]);

      // The victim signs up through the invitation and takes the registration over.
      const res = await accept(token)
        .send({ name: 'Victor', password: VICTIM_PASSWORD, 'password-confirm': VICTIM_PASSWORD })
        .expect(200);
      expect(res.body.data).toEqual({
        organization_id: admin.organizationId,
        account_id: squat.id,
        membership_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        role: 'developer',
      });

      // The attacker's password is gone; the squatter's verification link changes nothing.
      expectRefusal(
        await t.request().post('/login').send({ login: victim, password: ATTACKER_PASSWORD }),
        401,
        'invalid_credentials',
      );
      const verification = await tokenFromMail(sink, victim, 'Verification token');
      await t.request().post('/verify-email').send({ token: verification }).expect(200);
      expectRefusal(
        await t.request().post('/login').send({ login: victim, password: ATTACKER_PASSWORD }),
        401,
        'invalid_credentials',
      );
      const jwt = await login(t, victim, VICTIM_PASSWORD);
      const me = await t.request().get('/accounts/me').set(bearer(jwt)).expect(200);
      expect(me.body.data).toMatchObject({
        id: squat.id,
        name: 'Victor',
        email_verified_at: t.clock.now().toISOString(),
      });
      expect(
        (me.body.data.memberships as Array<{ organization_id: string; role: string }>).find(
          (m) => m.organization_id === admin.organizationId,
        )?.role,
      ).toBe('developer');

      const [entry] = await db.query<Array<Record<string, unknown>>>(
        `SELECT actor_account_id, credential_kind, target_id, details FROM audit_log
          WHERE organization_id = $1 AND action = 'invitations.accept'`,
        [admin.organizationId],
      );
      expect(entry).toEqual({
        actor_account_id: squat.id,
        credential_kind: null,
        target_id: shown.body.data.id,
        details: {
          email: victim,
          role: 'developer',
          account_id: squat.id,
          membership_id: res.body.data.membership_id,
          via: 'takeover',
        },
      });
    });

    it('never signs up over a verified account: its owner must sign in (401)', async () => {
      const admin = await createAccount(t, sink, email('host'));
      const owner = await createAccount(t, sink, email('owner'));
      const token = await invited(admin, owner.login);
      expect((await t.request().get(`/invite/${token}`)).body.data.account_exists).toBe(true);

      const res = await accept(token).send({
        name: 'Mallory',
        password: ATTACKER_PASSWORD,
        'password-confirm': ATTACKER_PASSWORD,
      });
      expectRefusal(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toBe('Bearer');
      await login(t, owner.login, PASSWORD);
      expectRefusal(
        await t.request().post('/login').send({ login: owner.login, password: ATTACKER_PASSWORD }),
        401,
        'invalid_credentials',
      );
      expect(await membershipsOf(admin.organizationId)).toHaveLength(1);
      expect(await pending(token)).toBe(true);
    });
  });

  describe('signed in', () => {
    it('refuses another account with 403 invitation_email_mismatch and changes nothing', async () => {
      const admin = await createAccount(t, sink, email('mismatch-admin'));
      const intruder = await createAccount(t, sink, email('intruder'));
      const to = email('intended');
      const token = await invited(admin, to);

      const res = await accept(token)
        .set(bearer(intruder.jwt))
        .send({ name: 'Intruder', password: PASSWORD, 'password-confirm': PASSWORD });
      expectRefusal(res, 403, 'invitation_email_mismatch');
      expect(res.body.source_service).toBe('identity');
      expect(await membershipsOf(admin.organizationId)).toHaveLength(1);
      const accounts = await db.query('SELECT 1 FROM account WHERE lower(login) = $1', [to]);
      expect(accounts).toHaveLength(0);
      expect(await pending(token)).toBe(true);
    });

    it('compares the address as logins compare, case-insensitively', async () => {
      const admin = await createAccount(t, sink, email('case-admin'));
      const mixed = `Casey.${++n}@Binding.Example.com`;
      const casey = await createAccount(t, sink, mixed);
      const token = await invited(admin, mixed.toLowerCase(), 'operator');
      const res = await accept(token).set(bearer(casey.jwt)).expect(200);
      expect(res.body.data).toMatchObject({ account_id: casey.accountId, role: 'operator' });
    });

    it('refuses a static token (403), a bad session (401) and a cookie without CSRF (403)', async () => {
      const admin = await createAccount(t, sink, email('cred-admin'));
      const guest = await createAccount(t, sink, email('cred-guest'));
      const token = await invited(admin, guest.login);
      const staticToken = await mintToken(t, guest.jwt, ['members:*']);

      expectRefusal(
        await accept(token).set(bearer(staticToken)),
        403,
        'interactive_session_required',
      );
      expectRefusal(await accept(token).set(bearer('not.a.jwt')), 401, 'unauthorized');

      const loggedIn = await t
        .request()
        .post('/login')
        .send({ login: guest.login, password: PASSWORD })
        .expect(200);
      const cookies = (loggedIn.headers['set-cookie'] as unknown as string[]).map(
        (c) => c.split(';')[0],
      );
      const csrf = cookies.find((c) => c.startsWith('_hq_csrf='))!.slice('_hq_csrf='.length);
      expectRefusal(
        await accept(token).set('Cookie', cookies.join('; ')),
        403,
        'invalid_csrf_token',
      );
      expect(await membershipsOf(admin.organizationId)).toHaveLength(1);

      const res = await accept(token)
        .set('Cookie', cookies.join('; '))
        .set('X-CSRF-Token', csrf)
        .expect(200);
      expect(res.body.data.account_id).toBe(guest.accountId);
      const [entry] = await db.query<Array<Record<string, unknown>>>(
        `SELECT actor_account_id, credential_kind, details FROM audit_log
          WHERE organization_id = $1 AND action = 'invitations.accept'`,
        [admin.organizationId],
      );
      expect(entry).toMatchObject({
        actor_account_id: guest.accountId,
        credential_kind: 'session',
        details: { via: 'session', account_id: guest.accountId },
      });
    });
  });

  describe('audit', () => {
    it('records the creation, a sign-up acceptance and a decline', async () => {
      const admin = await createAccount(t, sink, email('audit-admin'));
      const newcomer = email('newcomer');
      const decliner = email('decliner');
      const accepted = await invited(admin, newcomer, 'viewer');
      const declined = await invited(admin, decliner, 'operator');
      const res = await accept(accepted)
        .send({ name: 'Nina', password: PASSWORD, 'password-confirm': PASSWORD })
        .expect(200);
      await t.request().patch(`/invite/${declined}/decline`).expect(200);

      const rows = await db.query<Array<Record<string, unknown>>>(
        `SELECT action, actor_account_id, credential_kind, target_type, details FROM audit_log
          WHERE organization_id = $1 ORDER BY action, details->>'email'`,
        [admin.organizationId],
      );
      expect(rows).toEqual([
        {
          action: 'invitations.accept',
          actor_account_id: res.body.data.account_id,
          credential_kind: null,
          target_type: 'invitation',
          details: {
            email: newcomer,
            role: 'viewer',
            account_id: res.body.data.account_id,
            membership_id: res.body.data.membership_id,
            via: 'signup',
          },
        },
        ...[decliner, newcomer].map((address) => ({
          action: 'invitations.create',
          actor_account_id: admin.accountId,
          credential_kind: 'jwt',
          target_type: 'invitation',
          details: { email: address, role: address === newcomer ? 'viewer' : 'operator' },
        })),
        {
          action: 'invitations.decline',
          actor_account_id: null,
          credential_kind: null,
          target_type: 'invitation',
          details: { email: decliner, role: 'operator', via: 'invitation_token' },
        },
      ]);
    });
  });
});
