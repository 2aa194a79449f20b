import { describe, expect, it } from '@jest/globals';
import {
  array,
  boolean,
  integer,
  map,
  narrowed,
  number,
  object,
  open,
  quantity,
  string,
  withoutDefaults,
  type Stored,
  type Written,
} from './schema-builder.js';

/** Compiles only when A and B are the same type. */
type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const sameType = <A, B>(same: Equal<A, B>) => expect(same).toBe(true);

const sample = object(
  {
    name: string({ minLength: 1 }),
    mode: string({ enum: ['fast', 'safe'], default: 'safe' }),
    size: integer({ minimum: 0 }),
    nested: object({ flag: boolean({ default: false }) }, { default: {} }),
    tags: array(string(), { listType: 'set' }),
    labels: map(string()),
    cpu: quantity(),
    values: open('kept as written'),
  },
  { required: ['name'], description: 'A sample.' },
);

describe('schema builder', () => {
  it('writes structural schemas without unset keys', () => {
    expect(sample.schema).toEqual({
      type: 'object',
      description: 'A sample.',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1 },
        mode: { type: 'string', enum: ['fast', 'safe'], default: 'safe' },
        size: { type: 'integer', minimum: 0 },
        nested: {
          type: 'object',
          default: {},
          properties: { flag: { type: 'boolean', default: false } },
        },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        cpu: {
          'x-kubernetes-int-or-string': true,
          anyOf: [{ type: 'integer' }, { type: 'string' }],
          pattern: expect.any(String),
        },
        values: {
          type: 'object',
          description: 'kept as written',
          'x-kubernetes-preserve-unknown-fields': true,
        },
      },
    });
  });

  it('infers the stored type: required and defaulted fields present, enums as unions', () => {
    sameType<
      Stored<typeof sample>,
      {
        name: string;
        mode: 'fast' | 'safe';
        nested: { flag: boolean };
        size?: number;
        tags?: string[];
        labels?: Record<string, string>;
        cpu?: string | number;
        values?: Record<string, unknown>;
      }
    >(true);
  });

  it('infers the written type: only required fields needed', () => {
    sameType<
      Written<typeof sample>,
      {
        name: string;
        mode?: 'fast' | 'safe';
        nested?: { flag?: boolean };
        size?: number;
        tags?: string[];
        labels?: Record<string, string>;
        cpu?: string | number;
        values?: Record<string, unknown>;
      }
    >(true);
  });

  it('withoutDefaults drops every default and types the result as written', () => {
    const template = withoutDefaults(sample);
    expect(JSON.stringify(template.schema)).not.toContain('"default"');
    expect(template.schema.properties!.mode.enum).toEqual(['fast', 'safe']);
    sameType<Stored<typeof template>, Written<typeof sample>>(true);
  });

  it('arrays take a default and a minimum length; a default makes them present when stored', () => {
    const paths = object({ paths: array(string(), { default: ['/'], minItems: 1 }) });
    expect(paths.schema.properties!.paths).toEqual({
      type: 'array',
      default: ['/'],
      minItems: 1,
      items: { type: 'string' },
    });
    sameType<Stored<typeof paths>, { paths: string[] }>(true);
    sameType<Written<typeof paths>, { paths?: string[] }>(true);
  });

  it('number writes a JSON number with its bounds', () => {
    const share = number({ minimum: 0, maximum: 100 });
    expect(share.schema).toEqual({ type: 'number', minimum: 0, maximum: 100 });
    sameType<Stored<typeof share>, number>(true);
  });

  it('open and narrowed change the type, never the schema', () => {
    interface Affinity {
      nodeAffinity?: object;
    }
    const affinity = open<Affinity>('core/v1 Affinity');
    const phase = narrowed<'Running' | 'Failed'>()(string({ description: 'Phase.' }));
    expect(affinity.schema).toEqual(open('core/v1 Affinity').schema);
    expect(phase.schema).toEqual({ type: 'string', description: 'Phase.' });
    sameType<Stored<typeof affinity>, Affinity>(true);
    sameType<Written<typeof phase>, 'Running' | 'Failed'>(true);
  });
});
