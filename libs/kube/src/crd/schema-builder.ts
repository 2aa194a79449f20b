import type { JsonSchema } from './crd-types.js';

/*
 * A small builder of structural OpenAPI v3 schemas whose values are the CRD schemas and whose
 * inferred types are the TypeScript types of the same objects, so the two cannot disagree.
 * Two types come out of every node: `Stored`, what a reader gets back from the API server
 * (every field with a schema default is then present), and `Written`, what a client may send
 * (only required fields are needed).
 */

declare const shape: unique symbol;

export interface Schema<
  StoredType,
  WrittenType = StoredType,
  HasDefault extends boolean = boolean,
> {
  readonly schema: JsonSchema;
  /** Never set: carries the types for inference only. */
  readonly [shape]?: { stored: StoredType; written: WrittenType; hasDefault: HasDefault };
}

type AnySchema = Schema<unknown, unknown, boolean>;
export type Stored<S> = S extends Schema<infer T, unknown, boolean> ? T : never;
export type Written<S> = S extends Schema<unknown, infer W, boolean> ? W : never;
type HasDefault<S> = S extends Schema<unknown, unknown, infer D> ? D : never;
type Simplify<T> = { [K in keyof T]: T[K] } & {};

export interface Validation {
  rule: string;
  message: string;
}

interface Common {
  description?: string;
}

interface StringOptions extends Common {
  enum?: readonly string[];
  default?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  format?: 'date-time' | 'uri';
}

interface NumberOptions extends Common {
  default?: number;
  minimum?: number;
  maximum?: number;
  format?: 'int32' | 'int64';
}

type DefaultFlag<O> = O extends { default: unknown } ? true : false;

const node = (schema: JsonSchema): AnySchema => ({ schema: withoutUndefined(schema) });

/** Keys left undefined by optional options are not written into the schema (nor the YAML). */
function withoutUndefined(schema: JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(schema).filter(([, value]) => value !== undefined));
}

export function string<const O extends StringOptions = Record<never, never>>(
  options?: O,
): Schema<
  O extends { enum: readonly (infer E)[] } ? E : string,
  O extends { enum: readonly (infer E)[] } ? E : string,
  DefaultFlag<O>
> {
  const { enum: values, ...rest } = options ?? {};
  return node({ type: 'string', ...rest, enum: values ? [...values] : undefined }) as never;
}

export function integer<const O extends NumberOptions = Record<never, never>>(
  options?: O,
): Schema<number, number, DefaultFlag<O>> {
  return node({ type: 'integer', ...options }) as never;
}

/** A JSON number (a fraction such as a percentage); `integer` for whole numbers. */
export function number<const O extends NumberOptions = Record<never, never>>(
  options?: O,
): Schema<number, number, DefaultFlag<O>> {
  return node({ type: 'number', ...options }) as never;
}

export function boolean<const O extends Common & { default?: boolean }>(
  options?: O,
): Schema<boolean, boolean, DefaultFlag<O>> {
  return node({ type: 'boolean', ...options }) as never;
}

/** A Kubernetes quantity such as `500m`, `2` or `1Gi`, written as a number or a string. */
export function quantity(description?: string): Schema<string | number, string | number, false> {
  return node({
    description,
    'x-kubernetes-int-or-string': true,
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    pattern:
      '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
  }) as never;
}

interface ArrayOptions extends Common {
  minItems?: number;
  maxItems?: number;
  default?: readonly unknown[];
  /** `set` for lists of unique scalars, `map` for lists of objects keyed by `mapKeys`. */
  listType?: 'atomic' | 'set' | 'map';
  mapKeys?: string[];
}

export function array<S extends AnySchema, const O extends ArrayOptions = Record<never, never>>(
  items: S,
  options?: O,
): Schema<Stored<S>[], Written<S>[], DefaultFlag<O>> {
  const { listType, mapKeys, default: defaultItems, ...rest } = options ?? {};
  return node({
    type: 'array',
    ...rest,
    default: defaultItems ? [...defaultItems] : undefined,
    items: items.schema,
    'x-kubernetes-list-type': listType,
    'x-kubernetes-list-map-keys': mapKeys,
  }) as never;
}

/** An object whose keys are free (labels, annotations): every value has the same schema. */
export function map<S extends AnySchema>(
  values: S,
  options: Common = {},
): Schema<Record<string, Stored<S>>, Record<string, Written<S>>, false> {
  return node({ type: 'object', ...options, additionalProperties: values.schema }) as never;
}

/**
 * An object kept as written, for values handed on unread (to a chart, or to a pod as a
 * core/v1 structure such as Affinity, named by `T`).
 */
export function open(
  description: string,
): Schema<Record<string, unknown>, Record<string, unknown>, false>;
export function open<T extends object>(description: string): Schema<T, T, false>;
export function open(description: string): AnySchema {
  return node({
    type: 'object',
    description,
    'x-kubernetes-preserve-unknown-fields': true,
  });
}

type Properties = Record<string, AnySchema>;

interface ObjectOptions<K extends string> extends Common {
  required?: readonly K[];
  /**
   * `{}` on an optional object whose fields carry defaults: the API server only defaults
   * inside objects that exist.
   */
  default?: Record<string, never>;
  validations?: Validation[];
}

type RequiredOf<O> = O extends { required: readonly (infer K)[] } ? K : never;

type StoredObject<P extends Properties, R> = Simplify<
  {
    -readonly [K in keyof P as K extends R ? K : HasDefault<P[K]> extends true ? K : never]: Stored<
      P[K]
    >;
  } & {
    -readonly [
      K in keyof P as K extends R ? never : HasDefault<P[K]> extends true ? never : K
    ]?: Stored<P[K]>;
  }
>;

type WrittenObject<P extends Properties, R> = Simplify<
  { -readonly [K in keyof P as K extends R ? K : never]: Written<P[K]> } & {
    -readonly [K in keyof P as K extends R ? never : K]?: Written<P[K]>;
  }
>;

export function object<
  P extends Properties,
  const O extends ObjectOptions<keyof P & string> = Record<never, never>,
>(
  properties: P,
  options?: O,
): Schema<StoredObject<P, RequiredOf<O>>, WrittenObject<P, RequiredOf<O>>, DefaultFlag<O>> {
  const { required, validations, ...rest } = options ?? {};
  return node({
    type: 'object',
    ...rest,
    required: required?.length ? [...required] : undefined,
    properties: Object.fromEntries(Object.entries(properties).map(([key, s]) => [key, s.schema])),
    'x-kubernetes-validations': validations,
  }) as never;
}

/**
 * The same schema typed as `T`, narrower than what it infers: for values only the operator
 * writes, and always whole (a condition always has its transition time).
 */
export const narrowed =
  <T>() =>
  <S extends AnySchema>(schema: S): Schema<T, T, HasDefault<S>> =>
    schema as never;

/** The same node with a description, which kubectl explain shows. */
export function described<S extends AnySchema>(description: string, schema: S): S {
  const { type, ...rest } = schema.schema;
  return { schema: withoutUndefined({ type, description, ...rest }) } as S;
}

/**
 * The same schema without any default: for a template that is copied into another object,
 * which gets the defaults when it is created. Its type is what a client writes.
 */
export function withoutDefaults<S extends AnySchema>(
  schema: S,
): Schema<Written<S>, Written<S>, false> {
  const strip = (value: JsonSchema): JsonSchema => {
    const { default: _default, properties, items, additionalProperties, ...rest } = value;
    return withoutUndefined({
      ...rest,
      properties: properties
        ? Object.fromEntries(Object.entries(properties).map(([key, child]) => [key, strip(child)]))
        : undefined,
      items: items ? strip(items) : undefined,
      additionalProperties:
        typeof additionalProperties === 'object'
          ? strip(additionalProperties)
          : additionalProperties,
    });
  };
  return { schema: strip(schema.schema) };
}
