import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';
import { ContractProbeController } from './contract-probe.controller.js';

/** Versioning rule 3: once a later major exists and version 1 is sunset, 1 and omission get 410. */
describe('API version sunset', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createApiTestApp({
      controllers: [ContractProbeController],
      apiVersions: {
        versions: [
          { major: 1, sunset: new Date('2027-01-01T00:00:00Z'), successor: 2 },
          { major: 2 },
        ],
        defaultMajor: 1,
      },
    });
  });

  afterAll(async () => {
    await t.close();
  });

  it('keeps serving version 1 by default until the sunset', async () => {
    t.clock.set('2026-12-31T23:59:59Z');
    const res = await t.request().get('/contract-probe/object').expect(200);
    expect(res.headers['api-version']).toBe('1');
  });

  it('selects the later major with API-Version: 2', async () => {
    const res = await t.request().get('/contract-probe/object').set('API-Version', '2').expect(200);
    expect(res.headers['api-version']).toBe('2');
  });

  it.each([
    ['omitted', undefined],
    ['1', '1'],
  ])(
    'answers 410 with a successor-version link when the version is %s after the sunset',
    async (_label, header) => {
      t.clock.set('2027-01-01T00:00:00Z');
      const request = t.request().get('/contract-probe/object?x=1');
      if (header) request.set('API-Version', header);
      const res = await request.expect(410);
      expect(res.body).toMatchObject({ code: 'gone', retryable: false });
      expect(res.body.message).toContain('API-Version: 2');
      expect(res.headers['link']).toBe(
        `<${t.config.publicUrl}/contract-probe/object?x=1>; rel="successor-version"`,
      );
    },
  );

  it('still serves the successor after the sunset', async () => {
    t.clock.set('2027-02-01T00:00:00Z');
    await t.request().get('/contract-probe/object').set('API-Version', '2').expect(200);
  });

  it('keeps probes outside the versioned API', async () => {
    t.clock.set('2027-02-01T00:00:00Z');
    await t.request().get('/health/live').expect(200);
  });
});
