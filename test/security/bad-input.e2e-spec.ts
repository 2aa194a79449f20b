import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SCOPE_RESOURCES } from '@platform/identity';
import { deflateSync, gzipSync } from 'node:zlib';
import type { Response } from 'supertest';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import {
  bearer,
  createAccount,
  mintToken,
  PASSWORD,
  signupBody,
  type TestAccount,
} from '../support/identity.js';

const ERROR_KEYS = [
  'code',
  'message',
  'request_id',
  'retryable',
  'source_operation',
  'source_service',
];

const DASHES = '-'.repeat(36);

/** The error envelope, with its request id matching the header. */
function expectEnvelope(res: Response, status: number, code: string, operation: string) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ code, source_operation: operation, retryable: false });
  expect(
    Object.keys(res.body)
      .filter((key) => key !== 'details')
      .sort(),
  ).toEqual(ERROR_KEYS);
  expect(res.body.request_id).toBe(res.headers['x-request-id']);
}

/**
 * Each finding of the bad-input review, sent exactly as reported: every one used to answer
 * 500 and now answers a 4xx with the error envelope.
 */
describe('bad input answers 4xx, never 500', () => {
  let t: MailingTestApp;
  let owner: TestAccount;
  let token: string;
  let projectId: string;

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    owner = await createAccount(t, t.sink, 'owner@example.com', 'Bad Input Org');
    token = await mintToken(
      t,
      owner.jwt,
      SCOPE_RESOURCES.map((resource) => `${resource}:*`),
    );
    projectId = await alertsProject(t, owner);
  });

  afterAll(async () => {
    await t.close();
  });

  /** Sends the bytes as they are (supertest would serialize a Buffer as JSON). */
  const postJson = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    t
      .request()
      .post(path)
      .set({ 'Content-Type': 'application/json', ...headers })
      .serialize((raw: unknown) => raw as string)
      .send(body);

  /** 422 validation_failed naming the one field, as the validation pipe words its own. */
  function expectRefusedField(res: Response, operation: string, field: string, message: string) {
    expectEnvelope(res, 422, 'validation_failed', operation);
    expect(res.body.message).toBe(`Validation failed: ${message}`);
    expect(res.body.details).toEqual({ fields: [{ field, messages: [message] }] });
  }

  describe('NUL characters', () => {
    it('in the login of POST /login: 422 validation_failed naming the field', async () => {
      const res = await t
        .request()
        .post('/login')
        .send({ login: 'a\u0000b@example.com', password: PASSWORD });
      expectRefusedField(
        res,
        'signup.login',
        'login',
        'login must not contain a NUL character (U+0000)',
      );
    });

    it('in the name of POST /create-account: 422 and no account', async () => {
      const body = await signupBody(t, { login: 'nul@example.com', name: 'Ada\u0000' });
      const res = await t.request().post('/create-account').send(body);
      expectRefusedField(
        res,
        'signup.createAccount',
        'name',
        'name must not contain a NUL character (U+0000)',
      );
      await t
        .request()
        .post('/create-account')
        .send({ ...body, name: 'Ada' })
        .expect(201);
    });

    it('in a key of a nested object and in a form body', async () => {
      const res = await t
        .request()
        .post('/tokens')
        .set(bearer(owner.jwt))
        .send({ token: { name: 'x', scopes: ['alerts:read'], 'a\u0000': 1 } });
      expectRefusedField(
        res,
        'tokens.create',
        'token.a\\u0000',
        'token.a\\u0000 must not contain a NUL character (U+0000)',
      );
      const form = await t
        .request()
        .post('/login')
        .type('form')
        .send('login=a%00b%40example.com&password=x');
      expectRefusedField(
        form,
        'signup.login',
        'login',
        'login must not contain a NUL character (U+0000)',
      );
    });

    it('in the query string and in a path parameter', async () => {
      const query = await t.request().get(`/projects/${projectId}/alerts?q=%00`).set(bearer(token));
      expectRefusedField(query, 'alerts.list', 'q', 'q must not contain a NUL character (U+0000)');
      const path = await t.request().get('/legal/agb%00');
      expectRefusedField(
        path,
        'signup.legalDocument',
        'doc_type',
        'doc_type must not contain a NUL character (U+0000)',
      );
    });

    it('as an id: 404 not_found like any malformed id', async () => {
      const res = await t.request().get(`/projects/${projectId}/alerts/%00`).set(bearer(token));
      expectEnvelope(res, 404, 'not_found', 'alerts.show');
    });

    it('still answers 401 first to a caller without credentials', async () => {
      const res = await t.request().get(`/projects/${projectId}/alerts?q=%00`);
      expectEnvelope(res, 401, 'unauthorized', 'alerts.list');
    });
  });

  it('a lone surrogate in an e-mail address: 422 validation_failed', async () => {
    const res = await postJson('/resend-verification', '{"login":"\\ud800@example.com"}');
    expectRefusedField(
      res,
      'signup.resendVerification',
      'login',
      'login must be well-formed Unicode, not a lone surrogate',
    );
  });

  describe('deep JSON', () => {
    const deep = (levels: number) =>
      `{"login":${'['.repeat(levels - 1)}1${']'.repeat(levels - 1)}}`;

    it('33 levels: 400 bad_request', async () => {
      const res = await postJson('/login', deep(33));
      expectEnvelope(res, 400, 'bad_request', 'signup.login');
      expect(res.body.message).toBe('The request body nests deeper than 32 levels');
    });

    it('10,000 levels: 400 bad_request', async () => {
      const res = await postJson('/login', deep(10_000));
      expectEnvelope(res, 400, 'bad_request', 'signup.login');
    });

    it('32 levels pass on to validation', async () => {
      const res = await postJson('/login', deep(32));
      expectEnvelope(res, 422, 'validation_failed', 'signup.login');
    });
  });

  describe('Content-Encoding', () => {
    const login = JSON.stringify({ login: 'nobody@example.com', password: PASSWORD });

    it('gzip that is not gzip: 400 bad_request', async () => {
      const res = await postJson('/login', login, { 'Content-Encoding': 'gzip' });
      expectEnvelope(res, 400, 'bad_request', 'signup.login');
      expect(res.body.message).toBe(
        'The request body could not be decompressed as its Content-Encoding says',
      );
    });

    it('truncated gzip: 400 bad_request', async () => {
      const res = await postJson('/login', gzipSync(login).subarray(0, 15), {
        'Content-Encoding': 'gzip',
      });
      expectEnvelope(res, 400, 'bad_request', 'signup.login');
    });

    it.each(['br', 'compress', 'gzip, gzip', 'nonsense'])(
      '%s: 415 unsupported_media_type',
      async (encoding) => {
        const res = await postJson('/login', login, { 'Content-Encoding': encoding });
        expectEnvelope(res, 415, 'unsupported_media_type', 'signup.login');
      },
    );

    it('real gzip and deflate are read', async () => {
      for (const [encoding, body] of [
        ['gzip', gzipSync(login)],
        ['deflate', deflateSync(login)],
      ] as const) {
        const res = await postJson('/login', body, { 'Content-Encoding': encoding });
        expectEnvelope(res, 401, 'invalid_credentials', 'signup.login');
      }
    });

    it('a compressed body is refused past 1 MB once decompressed', async () => {
      const huge = JSON.stringify({ login: 'x'.repeat(2 * 1024 * 1024) });
      const res = await postJson('/login', gzipSync(huge), { 'Content-Encoding': 'gzip' });
      expectEnvelope(res, 413, 'payload_too_large', 'signup.login');
    });
  });

  describe('POST /tokens without the token object', () => {
    it.each([
      ['{}', {}],
      ['an array', { token: [] }],
      ['null', { token: null }],
    ])('%s: 422 validation_failed naming token', async (_label, body) => {
      const res = await t.request().post('/tokens').set(bearer(owner.jwt)).send(body);
      expectEnvelope(res, 422, 'validation_failed', 'tokens.create');
      const fields = res.body.details.fields as Array<{ field: string; messages: string[] }>;
      expect(fields.find((f) => f.field === 'token')?.messages).toContain(
        'token must be an object',
      );
    });
  });

  it('offset=9223372036854775808 on GET /notifications: 422 naming offset', async () => {
    const res = await t
      .request()
      .get('/notifications?offset=9223372036854775808&limit=99999999999999999999')
      .set(bearer(token));
    expectRefusedField(
      res,
      'notificationCenter.list',
      'offset',
      'offset must be an integer from 0 to 9007199254740991',
    );
  });

  it('limit=99999999999999999999 on GET /notifications is clamped, as the spec pins', async () => {
    const res = await t
      .request()
      .get('/notifications?offset=9007199254740991&limit=99999999999999999999')
      .set(bearer(token))
      .expect(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.metadata).toMatchObject({ count: 0 });
  });

  it('offset past 2^63 on the alert list is floored, as the spec pins', async () => {
    const alerts = await t
      .request()
      .get(`/projects/${projectId}/alerts?offset=9223372036854775808`)
      .set(bearer(token))
      .expect(200);
    expect(alerts.body.data).toEqual([]);
  });

  describe('a 36-dash id', () => {
    it.each([
      ['patch', `/notifications/${DASHES}/read`, 'notificationCenter.markRead'],
      ['delete', `/tokens/${DASHES}`, 'tokens.revoke'],
      ['get', `/memberships/${DASHES}`, 'organizations.showMembership'],
      ['get', `/projects/${DASHES}`, 'capabilities.showProject'],
      ['get', `/organizations/${DASHES}/projects`, 'organizations.listProjects'],
    ] as const)('%s %s: 404 not_found', async (method, path, operation) => {
      const res = await t.request()[method](path).set(bearer(token));
      expectEnvelope(res, 404, 'not_found', operation);
    });

    it('as an alert id and as a nested id of a project route: 404 not_found', async () => {
      const base = `/projects/${projectId}`;
      for (const path of [`/alerts/${DASHES}`, `/alerts/${DASHES}/silences`]) {
        const res = await t.request().get(`${base}${path}`).set(bearer(token));
        expect([res.status, res.body.code]).toEqual([404, 'not_found']);
      }
    });

    it('dismissing a broadcast by it: 200 like any unknown id, as the spec asks', async () => {
      // A login session: dismissing is an account setting, which static tokens may not change.
      const res = await t
        .request()
        .post(`/broadcasts/${DASHES}/dismiss`)
        .set(bearer(owner.jwt))
        .expect(200);
      expect(res.body.data).toEqual({ ok: true });
    });

    it('is not taken for an id where the parameter is a signed token', async () => {
      const res = await t.request().get(`/alerts/ack/${DASHES}`);
      expectEnvelope(res, 401, 'invalid_signed_token', 'signedAck.show');
    });
  });
});
