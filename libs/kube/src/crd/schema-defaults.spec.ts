import { describe, expect, it } from '@jest/globals';
import type { JsonSchema } from './crd-types.js';
import { applySchemaDefaults } from './schema-defaults.js';

const schema: JsonSchema = {
  type: 'object',
  properties: {
    size: { type: 'string', default: '5Gi' },
    parent: {
      type: 'object',
      default: {},
      properties: { child: { type: 'integer', default: 3 } },
    },
    optional: {
      type: 'object',
      properties: { child: { type: 'integer', default: 3 } },
    },
    items: {
      type: 'array',
      items: { type: 'object', properties: { weight: { type: 'integer', default: 1 } } },
    },
    labels: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        properties: { enabled: { type: 'boolean', default: true } },
      },
    },
    list: { type: 'array', items: { type: 'string' }, default: ['/'] },
  },
};

describe('applySchemaDefaults', () => {
  it('fills absent fields and descends into objects it just created', () => {
    expect(applySchemaDefaults(schema, {})).toEqual({
      size: '5Gi',
      parent: { child: 3 },
      list: ['/'],
    });
  });

  it('keeps values that are set, including false, zero and empty ones', () => {
    expect(applySchemaDefaults(schema, { size: '', parent: { child: 0 }, list: [] })).toEqual({
      size: '',
      parent: { child: 0 },
      list: [],
    });
  });

  it('replaces null with the default', () => {
    expect(applySchemaDefaults(schema, { size: null })).toMatchObject({ size: '5Gi' });
  });

  it('defaults inside an optional object only when the object is present', () => {
    expect(applySchemaDefaults(schema, {})).not.toHaveProperty('optional');
    expect(applySchemaDefaults(schema, { optional: {} })).toMatchObject({
      optional: { child: 3 },
    });
  });

  it('defaults every array item and map value', () => {
    expect(
      applySchemaDefaults(schema, {
        items: [{}, { weight: 5 }],
        labels: { a: {}, b: { enabled: false } },
      }),
    ).toMatchObject({
      items: [{ weight: 1 }, { weight: 5 }],
      labels: { a: { enabled: true }, b: { enabled: false } },
    });
  });

  it('leaves the input and the schema defaults untouched', () => {
    const input: { parent: object; list?: string[] } = { parent: {} };
    applySchemaDefaults(schema, input).list!.push('/srv');
    expect(input).toEqual({ parent: {} });
    expect(schema.properties!.list.default).toEqual(['/']);
  });
});
