/**
 * Values for the OpenAPI fuzz test: a seeded random source, well-formed bodies built from the
 * document's schemas, and the malformed values that replace parts of them.
 */

/** mulberry32: small, fast and the same sequence for the same seed on every machine. */
export class Random {
  constructor(private state: number) {}

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  uuid(): string {
    const hex = Array.from({ length: 32 }, () => this.int(16).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
  }
}

export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  example?: unknown;
  default?: unknown;
  nullable?: boolean;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const NUL = '\u0000';

/** Strings that are wrong for most fields: empty, NUL, huge, numeric text, markup, odd Unicode. */
export const BAD_STRINGS: readonly string[] = [
  '',
  ' ',
  NUL,
  `a${NUL}b`,
  `${NUL}${'x'.repeat(30)}`,
  'x'.repeat(100 * 1024),
  'é'.repeat(5000),
  '-1',
  '9223372036854775808',
  '-9223372036854775809',
  '1e309',
  'NaN',
  'true',
  'null',
  '[]',
  '{}',
  '%',
  '_\\%',
  "' OR '1'='1' --",
  '<script>alert(1)</script>',
  '\ud800',
  '\u202e\u0301\ufeff',
  '😀'.repeat(50),
  '-'.repeat(36),
  '2030-13-45T25:61:61Z',
  '+99999-01-01T00:00:00Z',
  '../../etc/passwd',
];

/** Numbers outside what columns hold, negative, fractional or at the edges of integer types. */
export const BAD_NUMBERS: readonly number[] = [
  -1,
  0,
  -0.5,
  1.5,
  1e-7,
  2147483647,
  2147483648,
  -2147483649,
  Number.MAX_SAFE_INTEGER + 2,
  2 ** 63,
  -(2 ** 64),
  1e19,
  -1e19,
  1e308,
  -1e308,
];

/** Values of the wrong shape for any field: nulls, booleans, arrays for objects and back. */
export const WRONG_SHAPES: readonly Json[] = [
  null,
  true,
  false,
  [],
  {},
  [null],
  [1, 'two', { three: 3 }],
  { a: { b: { c: [] } } },
  [[[[[]]]]],
  [{}],
];

export function badValue(random: Random): Json {
  switch (random.int(3)) {
    case 0:
      return random.pick(BAD_STRINGS);
    case 1:
      return random.pick(BAD_NUMBERS);
    default:
      return random.pick(WRONG_SHAPES);
  }
}

/** `levels` nested arrays (or objects) around a number, as JSON text. */
export function deepJson(levels: number, kind: 'array' | 'object' = 'array'): string {
  return kind === 'array'
    ? `${'['.repeat(levels)}1${']'.repeat(levels)}`
    : `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

/** Resolves `$ref` and `allOf` against the document's components. */
export function resolve(schema: Schema | undefined, components: Record<string, Schema>): Schema {
  let current = schema ?? {};
  for (let hops = 0; current.$ref && hops < 10; hops++)
    current = components[current.$ref.replace('#/components/schemas/', '')] ?? {};
  if (current.allOf) {
    const parts = current.allOf.map((part) => resolve(part, components));
    return {
      type: 'object',
      properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})),
      required: parts.flatMap((part) => part.required ?? []),
    };
  }
  return current.oneOf?.[0] || current.anyOf?.[0]
    ? resolve((current.oneOf ?? current.anyOf)![0], components)
    : current;
}

/**
 * A well-formed value for a schema, preferring real values: a fixture value for a property
 * that names one (`account_id`, `target_roster_id`, ...), an example, the first enum entry.
 * Objects get their required properties and the named ones: optional properties often
 * depend on each other, and the fuzz adds them one at a time (`mutate`).
 */
export function seedValue(
  schema: Schema | undefined,
  components: Record<string, Schema>,
  named: Record<string, Json>,
  name = '',
  depth = 0,
): Json {
  const resolved = resolve(schema, components);
  if (name in named) return named[name];
  if (resolved.example !== undefined) return resolved.example as Json;
  if (resolved.enum?.length) return resolved.enum[0] as Json;
  if (resolved.default !== undefined) return resolved.default as Json;
  switch (resolved.type) {
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return depth > 4 ? [] : [seedValue(resolved.items, components, named, name, depth + 1)];
    case 'string':
      if (resolved.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
      if (resolved.format === 'date-time') return '2030-01-01T00:00:00Z';
      return 'fuzz';
    default: {
      if (!resolved.properties || depth > 4) return {};
      const value: Record<string, Json> = {};
      for (const [key, property] of Object.entries(resolved.properties))
        if (resolved.required?.includes(key) || key in named)
          value[key] = seedValue(property, components, named, key, depth + 1);
      return value;
    }
  }
}

/** The names of an object schema's properties, which mutations add to a seed. */
export function propertyNames(schema: Schema | undefined, components: Record<string, Schema>) {
  return Object.keys(resolve(schema, components).properties ?? {});
}

/** Every place in a value that a mutation can aim at: [] is the value itself. */
function places(value: Json, at: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(at);
  if (Array.isArray(value)) value.forEach((item, index) => places(item, [...at, index], out));
  else if (value && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) places(item, [...at, key], out);
  return out;
}

function clone(value: Json): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

/**
 * The seed with one place replaced by a bad value, removed, or given a NUL-named sibling, or
 * with one of the schema's properties added with a bad value; the label says what was done
 * where, for the report of a failing request.
 */
export function mutate(
  seed: Json,
  properties: readonly string[],
  random: Random,
): { value: Json; label: string } {
  const copy = clone(seed);
  if (properties.length && copy && typeof copy === 'object' && !Array.isArray(copy)) {
    if (random.int(3) === 0) {
      const name = random.pick(properties);
      const bad = badValue(random);
      copy[name] = bad;
      return { value: copy, label: `${name} := ${describe(bad)}` };
    }
  }
  const target = random.pick(places(copy));
  const where = target.length ? target.join('.') : '(body)';
  const action = random.int(10);
  if (target.length === 0) return { value: badValue(random), label: `body := bad value` };
  const parentPath = target.slice(0, -1);
  let parent: Json = copy;
  for (const key of parentPath) parent = (parent as Record<string | number, Json>)[key];
  const key = target[target.length - 1];
  const container = parent as Record<string | number, Json>;
  if (action === 0 && !Array.isArray(parent)) {
    delete container[key];
    return { value: copy, label: `${where} removed` };
  }
  if (action === 1 && !Array.isArray(parent)) {
    container[`${String(key)}${NUL}`] = container[key];
    return { value: copy, label: `${where} with a NUL-named sibling` };
  }
  if (action === 2) {
    container[key] = [container[key]];
    return { value: copy, label: `${where} wrapped in an array` };
  }
  const bad = badValue(random);
  container[key] = bad;
  return { value: copy, label: `${where} := ${describe(bad)}` };
}

function describe(value: Json): string {
  return typeof value === 'string' && value.length > 40
    ? `${value.length}-char string`
    : JSON.stringify(value);
}
