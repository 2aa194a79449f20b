import { describe, expect, it } from '@jest/globals';
import { isSecretField, REDACTED, redactSecrets, redactSecretText } from './redact.js';

const TOKEN = 'q2Vx8kP0m-Zr_4tYwB7nLc1sHdJfA9eUoG3iK6vXyQ5';
const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhY2NvdW50LTEiLCJpYXQiOjE3MDAwMDAwMDB9.' +
  'Xb3kQm9vJt5cW1aZpL0sR8yN2eF4gH6iK7uV3wD1oE0';
/** base64url(JSON claims) "." base64url(HMAC): the signed acknowledgement links. */
const SIGNED =
  'eyJhIjoiOWI3ZTIzZGQtMWQ0Ny00ZjRlLWI2YzUtYzg0ZWI0M2Y2ZDBmIiwidCI6MTcwMDAwMDAwMH0.' +
  'k3JtQm9vX1cW1aZpL0sR8yN2eF4gH6iK7uV3wD1oE0x';
const WHSEC = 'whsec_MfKQ9r1Eu0k4T2p+ZB8y6vqCJx3nW7mL5sHdA0gYcRo=';

describe('redactSecretText', () => {
  it.each([
    ['/invite/' + TOKEN, '/invite/[redacted]'],
    [`/invite/${TOKEN}/accept`, '/invite/[redacted]/accept'],
    [`/alerts/ack/${SIGNED}`, '/alerts/ack/[redacted]'],
    [`/alerts/phone_ack/${SIGNED}`, '/alerts/phone_ack/[redacted]'],
    [
      `Accept or decline here: https://cloud.example.com/invite/${TOKEN}`,
      'Accept or decline here: https://cloud.example.com/invite/[redacted]',
    ],
  ])('redacts the secret segment of %s', (text, expected) => {
    expect(redactSecretText(text)).toBe(expected);
  });

  it.each([
    [`/verify-email?token=${TOKEN}`, '/verify-email?token=[redacted]'],
    [`/password-reset?token=${TOKEN}&lang=de`, '/password-reset?token=[redacted]&lang=de'],
    [`/invitations/details?x=1&token=${TOKEN}`, '/invitations/details?x=1&token=[redacted]'],
    [`/cable?access_token=${TOKEN}`, '/cable?access_token=[redacted]'],
    [`/ack?signed_id=${TOKEN}`, '/ack?signed_id=[redacted]'],
    ['/login?password=hunter2', '/login?password=[redacted]'],
  ])('redacts secret query parameters of %s', (text, expected) => {
    expect(redactSecretText(text)).toBe(expected);
  });

  it.each([
    [`session ${JWT} expired`, 'session [redacted] expired'],
    [`_hq_session=${JWT}; Path=/`, '_hq_session=[redacted]; Path=/'],
    [`link ${SIGNED}`, 'link [redacted]'],
    [`Authorization: Bearer ${TOKEN}`, 'Authorization: Bearer [redacted]'],
    ['Authorization: Basic QUMxMjM0NTY6YXV0aHRva2Vu', 'Authorization: Basic [redacted]'],
    [`token hq_pat_${TOKEN} revoked`, 'token hq_pat_[redacted] revoked'],
    [`ingest with hq_ing_${TOKEN}`, 'ingest with hq_ing_[redacted]'],
    [`signing with ${WHSEC}`, 'signing with whsec_[redacted]'],
    [`Verification token: ${TOKEN}\n`, 'Verification token: [redacted]\n'],
    ['secret internal detail: password=hunter2', 'secret internal detail: password=[redacted]'],
    [
      'connect to postgres://app:hunter2@db.internal:5432/platform',
      'connect to postgres://app:[redacted]@db.internal:5432/platform',
    ],
  ])('redacts the secret of %s by its shape', (text, expected) => {
    expect(redactSecretText(text)).toBe(expected);
  });

  it('redacts every secret of a multi-line text, a stack included', () => {
    const stack = `Error: bad token hq_pat_${TOKEN}\n    at verify (file:///app/dist/libs/identity/src/x.js:10:5)`;
    expect(redactSecretText(stack)).toBe(
      'Error: bad token hq_pat_[redacted]\n    at verify (file:///app/dist/libs/identity/src/x.js:10:5)',
    );
  });

  it.each([
    '/invite/:token',
    '/alerts/ack/:signed_id',
    '/alerts/phone_ack/:token',
    '/projects/9b7e23dd-1d47-4f4e-b6c5-c84eb43f6d0f/alerts/1c2d/ack',
    '/alerts?organization_id=9b7e23dd-1d47-4f4e-b6c5-c84eb43f6d0f&limit=20',
    'Invalid or revoked token',
    'Missing or wrong X-CSRF-Token header',
    'postgres://app:***@db.internal:5432/platform',
    'redis://127.0.0.1:6379',
    'GET /accounts/me failed: connect ECONNREFUSED 127.0.0.1:5432',
    '2024-05-01T10:00:00.000Z',
    'ada@example.com',
    'the _hq_session cookie and hq_ tokens',
    'Eyjafjallajokull.example.com',
    'request',
  ])('leaves %s alone', (text) => {
    expect(redactSecretText(text)).toBe(text);
  });

  it('is stable on text it already redacted', () => {
    const once = redactSecretText(`/invite/${TOKEN}?token=${TOKEN} Reset token: ${TOKEN}`);
    expect(once).toBe('/invite/[redacted]?token=[redacted] Reset token: [redacted]');
    expect(redactSecretText(once)).toBe(once);
  });
});

describe('isSecretField', () => {
  it.each([
    'password',
    'current_password',
    'new_password',
    'password-confirm',
    'token',
    'secret',
    'signing_secret',
    'authorization',
    'Authorization',
    'cookie',
    'set-cookie',
    'x-csrf-token',
    'authToken',
    'api_key',
    'secretKey',
    'webhook-signature',
  ])('%s holds a secret', (name) => {
    expect(isSecretField(name)).toBe(true);
  });

  it.each(['token_id', 'tokens', 'login', 'route', 'path', 'message', 'code', 'request_id'])(
    '%s does not',
    (name) => {
      expect(isSecretField(name)).toBe(false);
    },
  );
});

describe('redactSecrets', () => {
  it('replaces the values of secret fields at any depth, arrays included', () => {
    const body = {
      login: 'ada@example.com',
      password: 'correct horse battery staple',
      'password-confirm': 'correct horse battery staple',
      current_password: 'old horse',
      new_password: 'new horse',
      headers: {
        authorization: `Bearer ${JWT}`,
        cookie: `_hq_session=${JWT}`,
        'set-cookie': ['a=1', 'b=2'],
        accept: 'application/json',
      },
      endpoints: [{ name: 'ops', signing_secret: WHSEC, token: 42 }],
    };
    expect(redactSecrets(body)).toEqual({
      login: 'ada@example.com',
      password: REDACTED,
      'password-confirm': REDACTED,
      current_password: REDACTED,
      new_password: REDACTED,
      headers: {
        authorization: REDACTED,
        cookie: REDACTED,
        'set-cookie': REDACTED,
        accept: 'application/json',
      },
      endpoints: [{ name: 'ops', signing_secret: REDACTED, token: REDACTED }],
    });
    // The logged object itself is left as it was.
    expect(body.password).toBe('correct horse battery staple');
    expect(body.headers.authorization).toBe(`Bearer ${JWT}`);
  });

  it('redacts secret shapes in any string field and keeps booleans and null of secret fields', () => {
    expect(
      redactSecrets({
        path: `/alerts/ack/${SIGNED}`,
        route: '/alerts/ack/:signed_id',
        note: [`Bearer ${TOKEN}`],
        secret_key_is_default: true,
        token: null,
      }),
    ).toEqual({
      path: '/alerts/ack/[redacted]',
      route: '/alerts/ack/:signed_id',
      note: ['Bearer [redacted]'],
      secret_key_is_default: true,
      token: null,
    });
  });

  it('returns a line without secrets as it is, without copying it', () => {
    const line = {
      request_id: 'req-1',
      method: 'GET',
      path: '/projects/9b7e23dd-1d47-4f4e-b6c5-c84eb43f6d0f/alerts',
      route: '/projects/:project_id/alerts',
      status: 200,
      duration_ms: 1.5,
      at: new Date(0),
      nested: { list: [1, 'two', { three: 3 }] },
    };
    expect(redactSecrets(line)).toBe(line);
    const error = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    expect(redactSecrets(error)).toBe(error);
    expect(redactSecrets('plain text')).toBe('plain text');
    expect(redactSecrets(42)).toBe(42);
  });

  it('copies an error with its type, message, stack, fields and cause redacted', () => {
    const cause = new Error(`upstream said Bearer ${TOKEN}`);
    const error = Object.assign(new TypeError(`bad link /alerts/ack/${SIGNED}`, { cause }), {
      request: { headers: { authorization: `Bearer ${TOKEN}` } },
      status: 401,
    });
    const redacted = redactSecrets(error);

    expect(redacted).not.toBe(error);
    expect(redacted).toBeInstanceOf(TypeError);
    expect(redacted.message).toBe('bad link /alerts/ack/[redacted]');
    expect(redacted.stack).toMatch(/^TypeError: bad link \/alerts\/ack\/\[redacted\]\n\s+at /);
    expect(redacted.stack).not.toContain(SIGNED);
    expect((redacted.cause as Error).message).toBe('upstream said Bearer [redacted]');
    expect(redacted.request).toEqual({ headers: { authorization: REDACTED } });
    expect(redacted.status).toBe(401);
    expect(Object.keys(redacted)).toEqual(['request', 'status']);
    // The thrown error is untouched.
    expect(error.message).toBe(`bad link /alerts/ack/${SIGNED}`);
  });

  it('survives cycles', () => {
    const node: Record<string, unknown> = { name: 'a', password: 'x' };
    node.self = node;
    expect(redactSecrets(node)).toEqual({ name: 'a', password: REDACTED, self: '[Circular]' });
  });
});
