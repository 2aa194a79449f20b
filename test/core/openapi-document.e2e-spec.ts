import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { type?: string };
}
type Document = { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']);

describe('OpenAPI document of the whole API', () => {
  let t: TestApp;
  let doc: Document;

  beforeAll(async () => {
    t = await createApiTestApp();
    doc = (await t.request().get('/openapi.json').expect(200)).body as Document;
  });

  afterAll(async () => {
    await t.close();
  });

  it('declares every path template name once, as a required path parameter of each operation', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      for (const [method, operation] of Object.entries(item)) {
        if (!METHODS.has(method)) continue;
        const inPath = (operation.parameters ?? []).filter((p) => p.in === 'path');
        const declared = inPath.map((p) => p.name).sort();
        if (JSON.stringify(declared) !== JSON.stringify([...names].sort()))
          problems.push(`${method} ${path}: declares [${declared.join(', ')}]`);
        for (const p of inPath)
          if (p.required !== true) problems.push(`${method} ${path}: ${p.name} not required`);
        checked += names.length;
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(100);
    // The alerting routes take their project from the principal, not from @Param().
    expect(doc.paths['/projects/{project_id}/alerts'].post.parameters).toContainEqual({
      name: 'project_id',
      in: 'path',
      required: true,
      schema: { type: 'string' },
    });
  });
});
