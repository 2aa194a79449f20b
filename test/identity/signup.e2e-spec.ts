import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { SmtpSink } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { bearer, PASSWORD, signupBody, tokenFromMail } from '../support/identity.js';

describe('legal documents and signup', () => {
  let t: MailingTestApp;
  let sink: SmtpSink;
  let db: DataSource;

  const count = async (table: string): Promise<number> =>
    Number(((await db.query(`SELECT count(*) AS n FROM ${table}`)) as Array<{ n: string }>)[0].n);

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    sink = t.sink;
    db = t.get(DataSource);
  });

  afterAll(async () => {
    await t.close();
  });

  beforeEach(async () => {
    await db.query('TRUNCATE account, organization CASCADE');
    sink.clear();
  });

  describe('GET /legal/{doc_type}', () => {
    it.each(['agb', 'nutzungsbedingungen', 'datenschutz'])(
      'serves %s with version and SHA-256 content hash',
      async (docType) => {
        const res = await t.request().get(`/legal/${docType}`).expect(200);
        expect(res.body.metadata.organization_id).toBeNull();
        expect(res.body.data).toMatchObject({ doc_type: docType, version: 1 });
        const { createHash } = await import('node:crypto');
        expect(res.body.data.content_hash).toBe(
          createHash('sha256').update(res.body.data.content).digest('hex'),
        );
      },
    );

    it('answers 404 for an unknown document', async () => {
      const res = await t.request().get('/legal/impressum').expect(404);
      expect(res.body.code).toBe('not_found');
    });
  });

  describe('POST /create-account', () => {
    it('creates the account, its organization with the account as admin, and the consent; e-mails a verification token', async () => {
      const body = await signupBody(t, { login: 'Ada@Example.com' });
      const res = await t.request().post('/create-account').send(body).expect(201);
      expect(res.body.metadata.organization_id).toBeNull();
      expect(res.body.data).toEqual({ success: expect.stringMatching(/e-mail/) });

      const [account] = (await db.query(
        'SELECT id, login, email_verified_at, password_hash FROM account',
      )) as Array<Record<string, string | null>>;
      expect(account.login).toBe('Ada@Example.com');
      expect(account.email_verified_at).toBeNull();
      expect(account.password_hash).toMatch(/^\$argon2id\$/);
      const memberships = (await db.query(
        'SELECT m.role, o.name FROM membership m JOIN organization o ON o.id = m.organization_id',
      )) as unknown[];
      expect(memberships).toEqual([{ role: 'admin', name: 'Analytical Engines' }]);
      const consent = (await db.query(
        'SELECT account_id, doc_type, version, content_hash, accepted_at FROM legal_consent ORDER BY doc_type',
      )) as Array<Record<string, unknown>>;
      expect(consent.map((c) => [c.doc_type, c.version, c.content_hash])).toEqual([
        ['agb', 1, body.legal_agb_hash],
        ['datenschutz', 1, body.legal_datenschutz_hash],
        ['nutzungsbedingungen', 1, body.legal_nutzungsbedingungen_hash],
      ]);
      for (const row of consent) {
        expect(row.account_id).toBe(account.id);
        expect((row.accepted_at as Date).toISOString()).toBe(t.clock.now().toISOString());
      }

      const mail = await sink.waitFor((m) =>
        m.to.some((a) => a.toLowerCase() === 'ada@example.com'),
      );
      expect(mail.subject).toBe('Verify your e-mail address');
      expect(mail.text).toContain(`${t.config.publicUrl}/verify-email?token=`);
    });

    it.each([
      ['missing', { legal_datenschutz_hash: undefined }],
      ['missing version', { legal_agb_version: undefined }],
      ['stale version', { legal_nutzungsbedingungen_version: 0 }],
      ['future version', { legal_agb_version: 2 }],
      ['mismatching hash', { legal_agb_hash: 'f'.repeat(64) }],
    ])('refuses a %s consent pair with 422 and creates nothing', async (_label, change) => {
      const res = await t
        .request()
        .post('/create-account')
        .send(await signupBody(t, change))
        .expect(422);
      expect(res.body).toMatchObject({
        code: 'legal_consent_invalid',
        source_service: 'identity',
        source_operation: 'signup.createAccount',
        retryable: false,
      });
      expect(res.body.message).toMatch(/terms were updated/);
      expect(res.body.message).toMatch(/reload/i);
      expect(await count('account')).toBe(0);
      expect(await count('organization')).toBe(0);
      expect(await count('legal_consent')).toBe(0);
      expect(sink.messages).toHaveLength(0);
    });

    it.each([
      [
        'a password confirmation that differs',
        { 'password-confirm': `${PASSWORD}!` },
        'password-confirm',
      ],
      ['a weak password', { password: 'short-pw', 'password-confirm': 'short-pw' }, 'password'],
      [
        'an 11-character password',
        { password: 'x'.repeat(11), 'password-confirm': 'x'.repeat(11) },
        'password',
      ],
      ['a login that is not an e-mail', { login: 'ada' }, 'login'],
      ['no organization name', { organization_name: '' }, 'organization_name'],
      ['a blank organization name', { organization_name: '   ' }, 'organization_name'],
      ['a blank name', { name: ' ' }, 'name'],
    ])('refuses %s with 422 validation_failed naming the field', async (_label, change, field) => {
      const res = await t
        .request()
        .post('/create-account')
        .send(await signupBody(t, change))
        .expect(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.fields.map((f: { field: string }) => f.field)).toContain(field);
      expect(await count('account')).toBe(0);
    });

    it('keeps logins unique case-insensitively', async () => {
      await t
        .request()
        .post('/create-account')
        .send(await signupBody(t))
        .expect(201);
      const res = await t
        .request()
        .post('/create-account')
        .send(await signupBody(t, { login: 'ADA@example.COM', organization_name: 'Other' }))
        .expect(409);
      expect(res.body.code).toBe('login_taken');
      expect(await count('account')).toBe(1);
      expect(await count('organization')).toBe(1);
    });
  });

  describe('verification', () => {
    let login: string;
    let n = 0;

    beforeEach(() => {
      n += 1;
      login = `verify-${n}@example.com`;
    });

    it('refuses login until the e-mail is verified, then logs in', async () => {
      await t
        .request()
        .post('/create-account')
        .send(await signupBody(t, { login }))
        .expect(201);
      const refused = await t
        .request()
        .post('/login')
        .send({ login: login, password: PASSWORD })
        .expect(403);
      expect(refused.body.code).toBe('email_not_verified');

      const token = await tokenFromMail(sink, login, 'Verification token');
      const verified = await t.request().post('/verify-email').send({ token }).expect(200);
      expect(verified.body.data).toEqual({ verified: true });

      const res = await t
        .request()
        .post('/login')
        .send({ login: login, password: PASSWORD })
        .expect(200);
      expect(res.headers.authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
      const me = await t
        .request()
        .get('/accounts/me')
        .set('Authorization', res.headers.authorization)
        .expect(200);
      expect(me.body.data.login).toBe(login);
    });

    it('uses a token only once', async () => {
      await t
        .request()
        .post('/create-account')
        .send(await signupBody(t, { login }))
        .expect(201);
      const token = await tokenFromMail(sink, login, 'Verification token');
      await t.request().post('/verify-email').send({ token }).expect(200);
      const again = await t.request().post('/verify-email').send({ token }).expect(422);
      expect(again.body.code).toBe('invalid_verification_token');
    });

    it('refuses an expired token and an unknown one', async () => {
      await t
        .request()
        .post('/create-account')
        .send(await signupBody(t, { login }))
        .expect(201);
      const token = await tokenFromMail(sink, login, 'Verification token');
      const start = t.clock.now();
      t.clock.advance({ hours: 49 });
      try {
        expect(
          (await t.request().post('/verify-email').send({ token }).expect(422)).body.code,
        ).toBe('invalid_verification_token');
      } finally {
        t.clock.set(start);
      }
      expect(
        (await t.request().post('/verify-email').send({ token: 'nope' }).expect(422)).body.code,
      ).toBe('invalid_verification_token');
      const [account] = (await db.query('SELECT email_verified_at FROM account')) as Array<{
        email_verified_at: Date | null;
      }>;
      expect(account.email_verified_at).toBeNull();
    });

    it('resends a fresh token to an unverified account only, answering alike', async () => {
      await t
        .request()
        .post('/create-account')
        .send(await signupBody(t, { login }))
        .expect(201);
      sink.clear();
      const res = await t
        .request()
        .post('/resend-verification')
        .send({ login: login.toUpperCase() })
        .expect(202);
      const unknown = await t
        .request()
        .post('/resend-verification')
        .send({ login: 'nobody@example.com' })
        .expect(202);
      expect(unknown.body.data).toEqual(res.body.data);
      const token = await tokenFromMail(sink, login, 'Verification token');
      await t.request().post('/verify-email').send({ token }).expect(200);
      const me = await t
        .request()
        .post('/login')
        .send({ login: login, password: PASSWORD })
        .expect(200);
      expect(me.headers.authorization).toBeDefined();
      expect(sink.messages.filter((m) => m.to.includes('nobody@example.com'))).toHaveLength(0);
    });
  });

  it('never answers 500 to a hostile body', async () => {
    for (const body of [[], 'text', { login: ['a'] }, { password: { $ne: 1 } }]) {
      const res = await t
        .request()
        .post('/create-account')
        .send(body as object);
      expect([400, 422]).toContain(res.status);
    }
    void bearer;
  });
});
