import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SmtpSink } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import {
  addMember,
  bearer,
  createAccount,
  login,
  PASSWORD,
  type TestAccount,
  tokenFromMail,
} from '../support/identity.js';

const NEW_PASSWORD = 'a brand new long passphrase';
const NEW_ACCOUNT = { name: 'Nora', password: NEW_PASSWORD, 'password-confirm': NEW_PASSWORD };

/** The fields a 422 validation_failed answer names. */
const fieldsOf = (res: { body: { details: { fields: Array<{ field: string }> } } }): string[] =>
  res.body.details.fields.map((f) => f.field);

describe('invitations', () => {
  let t: MailingTestApp;
  let sink: SmtpSink;
  let db: DataSource;
  let n = 0;

  /** A fresh e-mail address per call, so no test picks up another test's mail. */
  const email = (label: string): string => `${label}-${++n}@invites.example.com`;

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    sink = t.sink;
    db = t.get(DataSource);
  });

  afterAll(async () => {
    await t.close();
  });

  const invite = (admin: TestAccount, body: Record<string, unknown>) =>
    t
      .request()
      .post(`/invitations?organization_id=${admin.organizationId}`)
      .set(bearer(admin.jwt))
      .send(body);

  const count = async (sql: string, parameter: string): Promise<number> =>
    Number((await db.query<Array<{ n: string }>>(sql, [parameter]))[0].n);

  /** Invites `to` and returns the token from the e-mail. */
  const invited = async (admin: TestAccount, to: string, role = 'developer'): Promise<string> => {
    await invite(admin, { email: to, role }).expect(201);
    return tokenFromMail(sink, to, 'Invitation token');
  };

  const accountsWithLogin = (loginName: string): Promise<number> =>
    count('SELECT count(*) AS n FROM account WHERE lower(login) = lower($1)', loginName);

  const invitationCount = (organizationId: string): Promise<number> =>
    count('SELECT count(*) AS n FROM invitation WHERE organization_id = $1', organizationId);

  const membershipCount = (organizationId: string): Promise<number> =>
    count('SELECT count(*) AS n FROM membership WHERE organization_id = $1', organizationId);

  const expectError = (
    res: { status: number; body: { code: string } },
    status: number,
    code: string,
  ) => expect({ status: res.status, code: res.body.code }).toEqual({ status, code });

  describe('POST /invitations', () => {
    it('creates the invitation and e-mails the token', async () => {
      const admin = await createAccount(t, sink, email('inviter'), 'Invite Org');
      const to = email('new.person');
      const res = await invite(admin, { email: to.toUpperCase(), role: 'developer' }).expect(201);
      const expiresAt = new Date(t.clock.now().getTime() + 7 * 86_400_000).toISOString();
      expect(res.body.metadata.organization_id).toBe(admin.organizationId);
      expect(res.body.data).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        organization_id: admin.organizationId,
        email: to.toLowerCase(),
        role: 'developer',
        expires_at: expiresAt,
        created_at: t.clock.now().toISOString(),
      });

      const mail = await sink.waitFor((m) => m.to.includes(to.toLowerCase()));
      expect(mail.subject).toBe('You are invited to join Invite Org');
      expect(mail.text).toContain('as developer');
      const token = await tokenFromMail(sink, to, 'Invitation token');
      expect(mail.text).toContain(`${t.config.publicUrl}/invite/${encodeURIComponent(token)}`);
      // The token is stored hashed only.
      const rows = await db.query<Array<{ token_hash: string }>>(
        'SELECT token_hash FROM invitation WHERE id = $1',
        [res.body.data.id],
      );
      expect(rows[0].token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    });

    it.each([
      ['an unknown role', { email: 'x@example.com', role: 'owner' }, ['role']],
      ['an invalid e-mail', { email: 'not-an-email', role: 'viewer' }, ['email']],
      ['an empty body', {}, ['email', 'role']],
    ])('refuses %s with 422 validation_failed', async (_label, body, fields) => {
      const admin = await createAccount(t, sink, email('badinvite'));
      const res = await invite(admin, body).expect(422);
      expect(res.body.code).toBe('validation_failed');
      expect(fieldsOf(res).sort()).toEqual(fields);
      expect(await invitationCount(admin.organizationId)).toBe(0);
    });

    it('refuses to invite a member with 409 already_member', async () => {
      const admin = await createAccount(t, sink, email('member-admin'));
      const member = await addMember(t, sink, admin, email('member'), 'viewer');
      const before = await invitationCount(admin.organizationId);
      for (const address of [member.login, member.login.toUpperCase(), admin.login]) {
        const res = await invite(admin, { email: address, role: 'admin' }).expect(409);
        expect(res.body.code).toBe('already_member');
        expect(res.body.source_service).toBe('identity');
      }
      expect(await invitationCount(admin.organizationId)).toBe(before);
    });

    it('refuses a viewer with 403 forbidden and an anonymous caller with 401', async () => {
      const admin = await createAccount(t, sink, email('viewer-admin'));
      const viewer = await addMember(t, sink, admin, email('viewer'), 'viewer');
      const before = await invitationCount(admin.organizationId);
      const res = await t
        .request()
        .post('/invitations')
        .set(bearer(viewer.jwt))
        .send({ email: email('someone'), role: 'viewer' })
        .expect(403);
      expect(res.body.code).toBe('forbidden');
      const anonymous = await t
        .request()
        .post('/invitations')
        .send({ email: email('someone'), role: 'viewer' })
        .expect(401);
      expect(anonymous.body.code).toBe('unauthorized');
      expect(await invitationCount(admin.organizationId)).toBe(before);
    });
  });

  describe('showing an invitation', () => {
    it('shows the invitation publicly, by path and by query', async () => {
      const admin = await createAccount(t, sink, email('show-admin'), 'Show Org');
      const to = email('show');
      const created = await invite(admin, { email: to, role: 'operator' }).expect(201);
      const token = await tokenFromMail(sink, to, 'Invitation token');
      const expected = {
        id: created.body.data.id,
        organization_id: admin.organizationId,
        organization_name: 'Show Org',
        email: to,
        role: 'operator',
        expires_at: created.body.data.expires_at,
        account_exists: false,
      };

      const byPath = await t.request().get(`/invite/${token}`).expect(200);
      expect(byPath.body.metadata.organization_id).toBeNull();
      expect(byPath.body.data).toEqual(expected);
      const byQuery = await t.request().get('/invitations/details').query({ token }).expect(200);
      expect(byQuery.body.data).toEqual(expected);
    });

    it('reports whether an account with the invited login exists', async () => {
      const admin = await createAccount(t, sink, email('exists-admin'));
      const existing = await createAccount(t, sink, email('exists'));
      const token = await invited(admin, existing.login.toUpperCase());
      const res = await t.request().get(`/invite/${token}`).expect(200);
      expect(res.body.data).toMatchObject({
        email: existing.login.toLowerCase(),
        account_exists: true,
      });
    });

    it('answers 404 for an unknown token', async () => {
      expectError(await t.request().get('/invite/no-such-token'), 404, 'not_found');
      expectError(
        await t.request().get('/invitations/details').query({ token: 'no-such-token' }),
        404,
        'not_found',
      );
      expectError(await t.request().patch('/invite/no-such-token/accept'), 404, 'not_found');
      expectError(await t.request().patch('/invite/no-such-token/decline'), 404, 'not_found');
    });

    it.each([
      ['', 'no token'],
      ['?token=', 'an empty token'],
      ['?token=a&token=b', 'a repeated token'],
    ])('answers 422 naming token for %j (%s)', async (query) => {
      const res = await t.request().get(`/invitations/details${query}`);
      expectError(res, 422, 'validation_failed');
      expect(res.body).toMatchObject({
        source_operation: 'invitations.details',
        details: { fields: [{ field: 'token' }] },
      });
    });
  });

  describe('PATCH /invite/{token}/accept', () => {
    it('gives an existing account the membership once signed in as it, ignoring any body', async () => {
      const admin = await createAccount(t, sink, email('host'), 'Host Org');
      const guest = await createAccount(t, sink, email('guest'), 'Guest Org');
      const token = await invited(admin, guest.login, 'operator');
      // Whoever holds the token cannot rename the account or change its password.
      const body = { name: 'Mallory', password: NEW_PASSWORD, 'password-confirm': NEW_PASSWORD };

      const anonymous = await t.request().patch(`/invite/${token}/accept`).send(body).expect(401);
      expect(anonymous.body.code).toBe('unauthorized');
      expect(anonymous.headers['www-authenticate']).toBe('Bearer');
      expect(await membershipCount(admin.organizationId)).toBe(1);

      const res = await t
        .request()
        .patch(`/invite/${token}/accept`)
        .set(bearer(guest.jwt))
        .send(body)
        .expect(200);
      expect(res.body.data).toEqual({
        organization_id: admin.organizationId,
        account_id: guest.accountId,
        membership_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        role: 'operator',
      });

      const me = await t.request().get('/accounts/me').set(bearer(guest.jwt)).expect(200);
      expect(me.body.data.name).toBe(guest.login.split('@')[0]);
      expect(me.body.data.current_organization_id).toBeNull();
      expect(
        (me.body.data.memberships as Array<{ organization_id: string; role: string }>).map((m) => [
          m.organization_id,
          m.role,
        ]),
      ).toEqual([
        [guest.organizationId, 'admin'],
        [admin.organizationId, 'operator'],
      ]);
      expect(me.body.data.memberships[1]).toMatchObject({
        id: res.body.data.membership_id,
        organization_name: 'Host Org',
      });
      await login(t, guest.login, PASSWORD);
      await t
        .request()
        .post('/login')
        .send({ login: guest.login, password: NEW_PASSWORD })
        .expect(401);
      expect(await accountsWithLogin(guest.login)).toBe(1);
    });

    it('creates a verified account for a new login, which can log in at once', async () => {
      const admin = await createAccount(t, sink, email('new-admin'), 'Newcomer Org');
      const to = email('newcomer');
      const token = await invited(admin, to, 'viewer');

      const res = await t
        .request()
        .patch(`/invite/${token}/accept`)
        .send({
          name: '  Nora Newcomer ',
          password: NEW_PASSWORD,
          'password-confirm': NEW_PASSWORD,
        })
        .expect(200);
      expect(res.body.data).toMatchObject({
        organization_id: admin.organizationId,
        role: 'viewer',
      });

      const jwt = await login(t, to, NEW_PASSWORD);
      const me = await t.request().get('/accounts/me').set(bearer(jwt)).expect(200);
      expect(me.body.data).toMatchObject({
        id: res.body.data.account_id,
        login: to,
        name: 'Nora Newcomer',
        email_verified_at: t.clock.now().toISOString(),
        platform_admin: false,
        current_organization_id: admin.organizationId,
      });
      expect(me.body.data.memberships).toEqual([
        {
          id: res.body.data.membership_id,
          organization_id: admin.organizationId,
          organization_name: 'Newcomer Org',
          role: 'viewer',
          permissions: {},
        },
      ]);
      // The membership is the invited role's: a viewer reads projects but cannot invite.
      await t
        .request()
        .get(`/organizations/${admin.organizationId}/projects`)
        .set(bearer(jwt))
        .expect(200);
      await t
        .request()
        .post('/invitations')
        .set(bearer(jwt))
        .send({ email: email('x'), role: 'viewer' })
        .expect(403);
    });

    it.each([
      ['no body', undefined, ['name', 'password', 'password-confirm']],
      ['only a name', { name: 'Nora' }, ['password', 'password-confirm']],
      ['no confirmation', { name: 'Nora', password: NEW_PASSWORD }, ['password-confirm']],
      ['a blank name', { ...NEW_ACCOUNT, name: '   ' }, ['name']],
    ])(
      'refuses %s for a new login with 422 validation_failed naming the fields',
      async (_label, body, fields) => {
        const admin = await createAccount(t, sink, email('missing-admin'));
        const to = email('missing');
        const token = await invited(admin, to);

        const request = t.request().patch(`/invite/${token}/accept`);
        const res = await (body ? request.send(body) : request).expect(422);
        expect(res.body.code).toBe('validation_failed');
        expect(fieldsOf(res)).toEqual(fields);
        for (const field of fields) expect(res.body.message).toContain(field);

        expect(await accountsWithLogin(to)).toBe(0);
        expect(await membershipCount(admin.organizationId)).toBe(1);
        // The invitation stays usable.
        await t.request().get(`/invite/${token}`).expect(200);
        await t.request().patch(`/invite/${token}/accept`).send(NEW_ACCOUNT).expect(200);
        expect(await accountsWithLogin(to)).toBe(1);
      },
    );

    it.each([
      ['a weak password', { password: 'short-pw', 'password-confirm': 'short-pw' }, 'password'],
      ['a differing confirmation', { 'password-confirm': `${NEW_PASSWORD}!` }, 'password-confirm'],
    ])(
      'refuses %s with 422 validation_failed and creates nothing',
      async (_label, change, field) => {
        const admin = await createAccount(t, sink, email('weak-admin'));
        const to = email('weak');
        const token = await invited(admin, to);
        const res = await t
          .request()
          .patch(`/invite/${token}/accept`)
          .send({ ...NEW_ACCOUNT, ...change })
          .expect(422);
        expect(res.body.code).toBe('validation_failed');
        expect(fieldsOf(res)).toContain(field);
        expect(await accountsWithLogin(to)).toBe(0);
        expect(await membershipCount(admin.organizationId)).toBe(1);
        await t.request().get(`/invite/${token}`).expect(200);
      },
    );

    it('accepts only once: a second accept answers 410 invitation_used', async () => {
      const admin = await createAccount(t, sink, email('twice-admin'));
      const guest = await createAccount(t, sink, email('twice'));
      const token = await invited(admin, guest.login);
      await t.request().patch(`/invite/${token}/accept`).set(bearer(guest.jwt)).expect(200);

      for (const res of [
        await t.request().patch(`/invite/${token}/accept`).set(bearer(guest.jwt)),
        await t.request().patch(`/invite/${token}/decline`),
        await t.request().get(`/invite/${token}`),
        await t.request().get('/invitations/details').query({ token }),
      ]) {
        expectError(res, 410, 'invitation_used');
      }
      expect(await membershipCount(admin.organizationId)).toBe(2);
    });
  });

  describe('PATCH /invite/{token}/decline', () => {
    it('declines; afterwards the invitation can neither be shown nor accepted', async () => {
      const admin = await createAccount(t, sink, email('decline-admin'));
      const guest = await createAccount(t, sink, email('decliner'));
      const token = await invited(admin, guest.login);

      const res = await t.request().patch(`/invite/${token}/decline`).expect(200);
      expect(res.body.data).toEqual({ declined: true });

      for (const after of [
        await t.request().patch(`/invite/${token}/accept`),
        await t.request().get(`/invite/${token}`),
        await t.request().get('/invitations/details').query({ token }),
        await t.request().patch(`/invite/${token}/decline`),
      ]) {
        expectError(after, 410, 'invitation_used');
      }
      expect(await membershipCount(admin.organizationId)).toBe(1);
      const me = await t.request().get('/accounts/me').set(bearer(guest.jwt)).expect(200);
      expect(me.body.data.memberships).toHaveLength(1);
    });
  });

  describe('expiry', () => {
    it('is valid for 7 days, then answers 410 invitation_expired', async () => {
      const admin = await createAccount(t, sink, email('expiry-admin'));
      const to = email('late');
      const token = await invited(admin, to);
      const start = t.clock.now();
      try {
        t.clock.advance({ days: 6, hours: 23 });
        await t.request().get(`/invite/${token}`).expect(200);

        t.clock.set(start);
        t.clock.advance({ days: 8 });
        for (const res of [
          await t.request().get(`/invite/${token}`),
          await t.request().get('/invitations/details').query({ token }),
          await t.request().patch(`/invite/${token}/accept`).send(NEW_ACCOUNT),
          await t.request().patch(`/invite/${token}/decline`),
        ]) {
          expectError(res, 410, 'invitation_expired');
        }
      } finally {
        t.clock.set(start);
      }
      expect(await accountsWithLogin(to)).toBe(0);
      expect(await membershipCount(admin.organizationId)).toBe(1);
    });
  });
});
