import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import type { TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';

/*
 * The OpenAPI document passes Redocly's recommended rules, the linter client generators and
 * API portals use: no errors. Warnings are listed so a new one shows in the test's output.
 */
describe('OpenAPI document lint', () => {
  let t: TestApp;
  let source: string;

  beforeAll(async () => {
    t = await createApiTestApp();
    source = (await t.request().get('/openapi.json').expect(200)).text;
  });

  afterAll(async () => {
    await t.close();
  });

  it("has no error under Redocly's recommended rules", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    const describe = (p: (typeof problems)[number]) =>
      `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`;
    expect(problems.filter((p) => p.severity === 'error').map(describe)).toEqual([]);
    // Known and accepted: no license (the API is not licensed to its callers), a localhost
    // server (PUBLIC_URL of a test app), examples of open upstream objects.
    expect(
      [...new Set(problems.filter((p) => p.severity === 'warn').map((p) => p.ruleId))].sort(),
    ).toEqual(['info-license', 'no-invalid-schema-examples', 'no-server-example.com']);
  });

  it('gives every operation a summary and a documented success response', () => {
    const document = JSON.parse(source) as {
      paths: Record<string, Record<string, { summary?: string; responses: object }>>;
    };
    const missing: string[] = [];
    for (const [path, item] of Object.entries(document.paths))
      for (const [method, operation] of Object.entries(item)) {
        if (!operation.summary) missing.push(`${method} ${path}: summary`);
        if (!Object.keys(operation.responses).some((status) => /^[23]/.test(status)))
          missing.push(`${method} ${path}: success response`);
      }
    expect(missing).toEqual([]);
  });
});
