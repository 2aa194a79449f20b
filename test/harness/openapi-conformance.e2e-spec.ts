import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { CoreErrorCode, CoreException } from '@platform/core';
import { IdentityErrorCode, IdentityException, PasswordResetService } from '@platform/identity';
import type { TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';

/**
 * The test app checks every answer against the OpenAPI document. Here the service behind
 * `POST /password-reset` is made to answer what the document forbids, and the test takes the
 * violations itself (any other test would fail on them).
 */
describe('the OpenAPI check of the test app', () => {
  let t: TestApp;
  let resets: PasswordResetService;

  beforeAll(async () => {
    t = await createApiTestApp();
    resets = t.get(PasswordResetService);
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  afterAll(async () => {
    await t.close();
  });

  it('lets a documented answer pass', async () => {
    await t.request().post('/password-reset').send({ login: 'nobody@example.com' }).expect(202);
    expect(t.takeOpenApiViolations()).toEqual([]);
  });

  it('names the operation, the status and the ajv errors of a body that breaks its schema', async () => {
    jest.spyOn(resets, 'request').mockResolvedValue({ success: 42 } as never);
    await t.request().post('/password-reset').send({ login: 'nobody@example.com' }).expect(202);
    const [violation, ...more] = t.takeOpenApiViolations();
    expect(more).toEqual([]);
    expect(violation).toContain('POST /password-reset (/password-reset) answered 202');
    expect(violation).toContain('body does not match');
    expect(violation).toContain('"instancePath":"/data/success"');
    expect(violation).toContain('must be string');
  });

  it('refuses a field the document does not name', async () => {
    jest.spyOn(resets, 'request').mockResolvedValue({ success: 'ok', token: 'leak' } as never);
    await t.request().post('/password-reset').send({ login: 'nobody@example.com' }).expect(202);
    expect(t.takeOpenApiViolations()).toEqual([
      expect.stringContaining('must NOT have additional properties'),
    ]);
  });

  it('refuses a status the operation does not document', async () => {
    jest
      .spyOn(resets, 'request')
      .mockRejectedValue(new CoreException(CoreErrorCode.Conflict, 'not documented here'));
    await t.request().post('/password-reset').send({ login: 'nobody@example.com' }).expect(409);
    expect(t.takeOpenApiViolations()).toEqual([
      'POST /password-reset (/password-reset) answered 409: status not documented',
    ]);
  });

  it('refuses an error code the status does not document', async () => {
    jest
      .spyOn(resets, 'request')
      .mockRejectedValue(new IdentityException(IdentityErrorCode.TooManyAttempts, 'not here'));
    await t.request().post('/password-reset').send({ login: 'nobody@example.com' }).expect(429);
    expect(t.takeOpenApiViolations()).toEqual([
      'POST /password-reset (/password-reset) answered 429: error code `too_many_attempts` not documented for 429 (documented: rate_limited)',
    ]);
  });

  it('fails the close of an app with violations nobody took', async () => {
    const other = await createApiTestApp();
    jest.spyOn(other.get(PasswordResetService), 'request').mockResolvedValue({} as never);
    await other.request().post('/password-reset').send({ login: 'nobody@example.com' });
    await expect(other.close()).rejects.toThrow(
      /Answers the OpenAPI document does not allow:\n- POST \/password-reset .* answered 202: body does not match/,
    );
  });
});
