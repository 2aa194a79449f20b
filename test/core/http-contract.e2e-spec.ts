import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HealthRegistry } from '@platform/core';
import type { TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';
import { ContractProbeController, LEAKY_MESSAGE } from './contract-probe.controller.js';

const ERROR_KEYS = [
  'code',
  'message',
  'request_id',
  'retryable',
  'source_operation',
  'source_service',
];

describe('HTTP contract', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createApiTestApp({ controllers: [ContractProbeController] });
    t.clock.set('2026-11-22T10:00:00.000Z');
  });

  afterAll(async () => {
    await t.close();
  });

  describe('success envelope', () => {
    it('wraps an object with metadata and data', async () => {
      const res = await t.request().get('/contract-probe/object').expect(200);
      expect(res.body).toEqual({
        metadata: { organization_id: null, timestamp: '2026-11-22T10:00:00.000Z' },
        data: { hello: 'world' },
      });
    });

    it('counts a list', async () => {
      const res = await t.request().get('/contract-probe/list').expect(200);
      expect(res.body.metadata.count).toBe(3);
      expect(res.body.metadata).not.toHaveProperty('total');
      expect(res.body.data).toEqual(['a', 'b', 'c']);
    });

    it('reports count and total of a page', async () => {
      const res = await t.request().get('/contract-probe/page').expect(200);
      expect(res.body.metadata).toMatchObject({ count: 2, total: 7 });
      expect(res.body.data).toEqual([1, 2]);
    });

    it('sends 204 without a body', async () => {
      const res = await t.request().delete('/contract-probe/thing').expect(204);
      expect(res.text).toBe('');
      expect(res.headers['content-length']).toBeUndefined();
    });
  });

  describe('error envelope', () => {
    it('answers an unknown route with 404 not_found', async () => {
      const res = await t.request().get('/no/such/route').expect(404);
      expect(Object.keys(res.body).sort()).toEqual(ERROR_KEYS);
      expect(res.body).toMatchObject({
        code: 'not_found',
        source_service: 'api',
        source_operation: 'GET /no/such/route',
        retryable: false,
      });
      expect(res.body.request_id).toBe(res.headers['x-request-id']);
      expect(res.headers['api-version']).toBe('1');
    });

    it('answers malformed JSON with 400 bad_request', async () => {
      const res = await t
        .request()
        .post('/contract-probe/validate')
        .set('Content-Type', 'application/json')
        .send('{"name": "x",')
        .expect(400);
      expect(Object.keys(res.body).sort()).toEqual(ERROR_KEYS);
      expect(res.body).toMatchObject({
        code: 'bad_request',
        source_service: 'api',
        source_operation: 'contractProbe.validate',
        retryable: false,
      });
      expect(res.body.request_id).toBe(res.headers['x-request-id']);
      expect(res.headers['api-version']).toBe('1');
    });

    it('answers a body over 1 MB with 413 payload_too_large', async () => {
      const res = await t
        .request()
        .post('/contract-probe/validate')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ name: 'x'.repeat(1024 * 1024) }))
        .expect(413);
      expect(res.body).toMatchObject({
        code: 'payload_too_large',
        source_operation: 'contractProbe.validate',
      });
    });

    it('answers an unknown route with 404 whatever its body', async () => {
      const res = await t
        .request()
        .post('/no/such/route')
        .set('Content-Type', 'application/json')
        .send('{"name": "x",')
        .expect(404);
      expect(res.body.code).toBe('not_found');
    });

    it('answers failed validation with 422 validation_failed naming the fields', async () => {
      const res = await t
        .request()
        .post('/contract-probe/validate')
        .send({ name: 42, email: 'not-an-email', size: 11 })
        .expect(422);
      expect(Object.keys(res.body).sort()).toEqual([...ERROR_KEYS, 'details'].sort());
      expect(res.body).toMatchObject({
        code: 'validation_failed',
        source_service: 'api',
        source_operation: 'contractProbe.validate',
        retryable: false,
      });
      expect(res.body.request_id).toBe(res.headers['x-request-id']);
      expect(res.headers['api-version']).toBe('1');
      expect(res.body.message).toContain('name');
      expect(res.body.message).toContain('email');
      expect(res.body.message).toContain('size');
      expect(
        (res.body.details.fields as Array<{ field: string }>).map((f) => f.field).sort(),
      ).toEqual(['email', 'name', 'size']);
    });

    it('treats a missing body as failed validation, not a crash', async () => {
      const res = await t.request().post('/contract-probe/validate').expect(422);
      expect(res.body.code).toBe('validation_failed');
    });

    it('accepts a valid body and drops unknown properties', async () => {
      const res = await t
        .request()
        .post('/contract-probe/validate')
        .send({ name: 'n', email: 'a@example.com', size: 3, extra: true })
        .expect(201);
      expect(res.body.data).toEqual({ name: 'n', email: 'a@example.com', size: 3 });
    });

    it('answers a thrown error with 500 internal_error and no internals', async () => {
      const res = await t.request().get('/contract-probe/fail').expect(500);
      expect(Object.keys(res.body).sort()).toEqual(ERROR_KEYS);
      expect(res.body).toMatchObject({
        code: 'internal_error',
        message: 'An unexpected error occurred',
        source_service: 'api',
        source_operation: 'contractProbe.fail',
        retryable: true,
      });
      expect(res.headers['api-version']).toBe('1');
      expect(res.text).not.toContain('hunter2');
      expect(res.text).not.toContain(LEAKY_MESSAGE);
      expect(res.text).not.toMatch(/\bat .+\.ts:\d+/);
      expect(res.body.request_id).toBe(res.headers['x-request-id']);
    });

    it('does not leak SQL from a database error', async () => {
      const res = await t.request().get('/contract-probe/bad-sql').expect(500);
      expect(res.body.code).toBe('internal_error');
      expect(res.text).not.toMatch(/SELECT|table_that_does_not_exist|relation/i);
    });
  });

  describe('request id', () => {
    it('keeps a well-formed incoming X-Request-Id', async () => {
      const res = await t
        .request()
        .get('/no/such/route')
        .set('X-Request-Id', 'trace-0123456789')
        .expect(404);
      expect(res.headers['x-request-id']).toBe('trace-0123456789');
      expect(res.body.request_id).toBe('trace-0123456789');
    });

    it('replaces a malformed incoming id', async () => {
      const res = await t.request().get('/contract-probe/object').set('X-Request-Id', 'bad id!');
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('API-Version', () => {
    it('resolves an absent header to 1 and echoes it', async () => {
      const res = await t.request().get('/contract-probe/object').expect(200);
      expect(res.headers['api-version']).toBe('1');
    });

    it('echoes an explicit version 1', async () => {
      const res = await t
        .request()
        .get('/contract-probe/object')
        .set('API-Version', '1')
        .expect(200);
      expect(res.headers['api-version']).toBe('1');
    });

    it.each(['2', '0', 'abc', '1.0', 'v1'])('rejects API-Version %s with 400', async (value) => {
      const res = await t
        .request()
        .get('/contract-probe/object')
        .set('API-Version', value)
        .expect(400);
      expect(Object.keys(res.body).sort()).toEqual(ERROR_KEYS);
      expect(res.body).toMatchObject({
        code: 'unsupported_api_version',
        source_service: 'api',
        retryable: false,
      });
      expect(res.body.message).toContain('supported versions: 1');
    });
  });

  describe('deprecated route', () => {
    it('serves with Deprecation, Sunset and Link headers', async () => {
      const res = await t.request().get('/contract-probe/deprecated').expect(200);
      expect(res.headers['deprecation']).toBe(`@${Date.parse('2026-06-01T00:00:00Z') / 1000}`);
      expect(res.headers['sunset']).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
      expect(res.headers['link']).toBe(
        '<https://docs.example.com/migrations/contract-probe>; rel="deprecation"',
      );
      expect(res.body.data).toEqual({ still: 'serving' });
    });

    it('does not mark other routes', async () => {
      const res = await t.request().get('/contract-probe/object').expect(200);
      expect(res.headers['deprecation']).toBeUndefined();
      expect(res.headers['sunset']).toBeUndefined();
    });

    it('answers 410 gone once the sunset has passed', async () => {
      const before = t.clock.now();
      t.clock.set('2027-06-01T00:00:01Z');
      try {
        const res = await t.request().get('/contract-probe/deprecated').expect(410);
        expect(res.body.code).toBe('gone');
        expect(res.headers['link']).toContain('rel="deprecation"');
      } finally {
        t.clock.set(before);
      }
    });
  });

  describe('probes and documents', () => {
    it('answers /health/live', async () => {
      const res = await t.request().get('/health/live').expect(200);
      expect(res.body).toEqual({ status: 'ok' });
    });

    it('answers /health/ready after checking PostgreSQL and Redis', async () => {
      const res = await t.request().get('/health/ready').expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        checks: { database: { status: 'up' }, redis: { status: 'up' } },
      });
    });

    it('answers /health/ready with 503 naming the failing check', async () => {
      let down = true;
      t.get(HealthRegistry).register('probe-dependency', async () => {
        if (down) throw new Error('connection refused');
      });
      try {
        const res = await t.request().get('/health/ready').expect(503);
        expect(res.body).toMatchObject({
          code: 'service_unavailable',
          source_service: 'api',
          retryable: true,
          details: {
            checks: {
              database: { status: 'up' },
              redis: { status: 'up' },
              'probe-dependency': { status: 'down', error: 'connection refused' },
            },
          },
        });
        expect(res.body.message).toContain('probe-dependency');
      } finally {
        down = false;
      }
      await t.request().get('/health/ready').expect(200);
    });

    it('serves the OpenAPI document generated from the controllers', async () => {
      const res = await t.request().get('/openapi.json').expect(200);
      expect(res.body.openapi).toBe('3.0.1');
      expect(res.body.info.version).toBe('1');
      expect(res.body.paths['/contract-probe/validate'].post.operationId).toBe(
        'contractProbe.validate',
      );
      expect(res.body.paths['/health/ready']).toBeDefined();
      expect(res.body.components.schemas.ErrorEnvelope).toBeDefined();
    });

    it('exposes request counts and latency per route, and queue depths', async () => {
      await t.request().get('/contract-probe/object').expect(200);
      const res = await t.request().get('/metrics').expect(200);
      expect(res.headers['content-type']).toContain('text/plain');
      expect(res.text).toMatch(
        /http_requests_total\{method="GET",route="\/contract-probe\/object",status="200"\} \d+/,
      );
      expect(res.text).toMatch(
        /http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/contract-probe\/object",status="200"\}/,
      );
      expect(res.text).toMatch(
        /http_requests_total\{method="GET",route="unmatched",status="404"\}/,
      );
      expect(res.text).toMatch(/queue_jobs\{queue="escalations",state="waiting"\} 0/);
    });
  });
});
