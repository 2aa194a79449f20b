import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '@platform/core';
import type { TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';

/*
 * CORS_ORIGINS: browser dashboards on the listed origins call the API with credentials; any
 * other origin gets no CORS header, and without the setting there is no cross-origin access.
 */
const DASHBOARD = 'https://dashboard.example.com';

describe('CORS', () => {
  describe('with CORS_ORIGINS', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createApiTestApp({ config: { corsOrigins: [DASHBOARD] } });
    });

    afterAll(async () => {
      await t.close();
    });

    it("answers a listed origin's preflight with what it may send and read", async () => {
      const res = await t
        .request()
        .options('/organizations')
        .set('Origin', DASHBOARD)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'content-type,x-csrf-token,idempotency-key')
        .expect(204);
      expect(res.headers['access-control-allow-origin']).toBe(DASHBOARD);
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(res.headers['access-control-allow-methods']).toBe('GET,POST,PUT,PATCH,DELETE');
      expect(res.headers['access-control-allow-headers']).toContain('X-CSRF-Token');
      expect(res.headers['access-control-allow-headers']).toContain('Idempotency-Key');
      expect(res.headers['access-control-max-age']).toBe('600');
    });

    it('lets the listed origin read the answer and its headers', async () => {
      const res = await t.request().get('/health/live').set('Origin', DASHBOARD).expect(200);
      expect(res.headers['access-control-allow-origin']).toBe(DASHBOARD);
      expect(res.headers['access-control-expose-headers']).toContain('X-Request-Id');
      expect(res.headers['access-control-expose-headers']).toContain('RateLimit-Remaining');
    });

    it('gives any other origin no CORS header', async () => {
      const res = await t
        .request()
        .get('/health/live')
        .set('Origin', 'https://evil.example.com')
        .expect(200);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  it('is off without CORS_ORIGINS', async () => {
    const t = await createApiTestApp();
    try {
      const res = await t.request().get('/health/live').set('Origin', DASHBOARD).expect(200);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await t.close();
    }
  });

  it('refuses origins with a path, another scheme or a wildcard', () => {
    for (const value of ['https://a.example.com/app', 'ftp://a.example.com', '*']) {
      expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(
        `CORS_ORIGINS must list origins such as https://app.example.com, without path (got "${value}")`,
      );
    }
    expect(
      loadConfig({ CORS_ORIGINS: 'https://a.example.com, http://localhost:5173' }).corsOrigins,
    ).toEqual(['https://a.example.com', 'http://localhost:5173']);
  });
});
