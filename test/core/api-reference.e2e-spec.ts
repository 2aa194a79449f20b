import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';

/*
 * The browsable reference at /docs: Swagger UI from the installed package, nothing from a CDN,
 * showing the document /openapi.json serves, without credentials.
 */
describe('API reference at /docs', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createApiTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('serves the Swagger UI page with its assets from the API itself', async () => {
    const page = await t.request().get('/docs').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<title>Platform Control API</title>');
    const sources = [...page.text.matchAll(/(?:src|href)=['"]([^'"]+)['"]/g)].map((m) => m[1]);
    expect(sources.length).toBeGreaterThanOrEqual(3);
    // Relative to the page: no CDN, no other host.
    expect(sources.filter((source) => /^(https?:)?\/\//.test(source))).toEqual([]);
    for (const source of sources) {
      const asset = await t.request().get(new URL(source, 'http://api.test/docs').pathname);
      expect([source, asset.status]).toEqual([source, 200]);
    }
    const bundle = await t.request().get('/docs/swagger-ui-bundle.js').expect(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
  });

  it('shows the document the API serves', async () => {
    const document = (await t.request().get('/openapi.json').expect(200)).body as {
      info: unknown;
      paths: Record<string, unknown>;
    };
    const script = (await t.request().get('/docs/swagger-ui-init.js').expect(200)).text;
    const inlined = /let options = (\{[\s\S]*?\});\n/.exec(script);
    expect(inlined).not.toBeNull();
    const options = JSON.parse(inlined![1]) as { swaggerDoc: typeof document };
    expect(options.swaggerDoc.info).toEqual(document.info);
    expect(Object.keys(options.swaggerDoc.paths)).toEqual(Object.keys(document.paths));
  });

  it('serves neither a second document nor the package license', async () => {
    await t.request().get('/docs-json').expect(404);
    await t.request().get('/docs-yaml').expect(404);
    await t.request().get('/docs/LICENSE').expect(404);
  });
});
