import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { apiOpenApiDocument, DOCUMENT_SERVER_URL } from '../../apps/api/openapi-document.js';
import {
  CLIENT_SCHEMA_PATH,
  renderClientSchema,
} from '../../libs/api-client/src/codegen/render-schema.js';
import { createApiTestApp } from '../support/api-app.js';

describe('generated API client types', () => {
  it('the committed schema.d.ts is what the API document generates now (npm run client:generate)', async () => {
    const generated = await renderClientSchema(await apiOpenApiDocument());
    // Compared as text, so a stale file fails with the lines that differ.
    expect(readFileSync(CLIENT_SCHEMA_PATH, 'utf8')).toBe(generated);
  });

  it('the document built without a database is the one the running API serves', async () => {
    const document = await apiOpenApiDocument();
    const t = await createApiTestApp({ config: { publicUrl: DOCUMENT_SERVER_URL } });
    try {
      const served = (await t.request().get('/openapi.json').expect(200)).body;
      expect(JSON.parse(JSON.stringify(document))).toEqual(served);
      expect(Object.keys(document.paths).length).toBeGreaterThan(150);
    } finally {
      await t.close();
    }
  });
});
