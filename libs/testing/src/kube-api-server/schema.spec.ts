import { describe, expect, it } from '@jest/globals';
import type { JsonSchema } from './kinds.js';
import type { StoredObject } from './objects.js';
import { applySchema } from './schema.js';

const schema: JsonSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer', default: 1, minimum: 1 },
        nested: { type: 'object', properties: { flag: { type: 'boolean', default: false } } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        port: { 'x-kubernetes-int-or-string': true },
        ratio: { type: 'number', exclusiveMaximum: true, maximum: 1 },
        name: { type: 'string', pattern: '^[a-z]+$', maxLength: 5 },
        optional: { type: 'string', nullable: true },
      },
    },
  },
};

const object = (spec: unknown): StoredObject => ({
  apiVersion: 'x/v1',
  kind: 'X',
  metadata: { name: 'x' },
  spec,
});

describe('applySchema', () => {
  it('prunes unknown fields and nulls, fills defaults only where the parent exists', () => {
    const target = object({
      unknown: 1,
      nested: {},
      labels: { a: 'b' },
      port: 'http',
      optional: null,
    });
    expect(applySchema(target, schema)).toEqual([]);
    expect(target.spec).toEqual({
      size: 1,
      nested: { flag: false },
      labels: { a: 'b' },
      port: 'http',
      optional: null,
    });
    const bare = object({});
    applySchema(bare, schema);
    expect(bare.spec).toEqual({ size: 1 });
  });

  it('reports type, bound, pattern and length violations in the server wording', () => {
    const target = object({ size: 1.5, ratio: 1, name: 'ABCDEFG', labels: { a: 1 }, port: true });
    expect(applySchema(target, schema)).toEqual([
      'spec.size: Invalid value: "number": spec.size in body must be of type integer: "number"',
      'spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1',
      'spec.name: Too long: may not be more than 5 bytes',
      `spec.name: Invalid value: "ABCDEFG": spec.name in body should match '^[a-z]+$'`,
      'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
      'spec.port: Invalid value: "boolean": spec.port in body must be of type undefined: "boolean"',
    ]);
  });
});
