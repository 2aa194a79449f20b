import { deflateSync, gzipSync } from 'node:zlib';
import { BAD_NUMBERS, BAD_STRINGS, deepJson, type Json, mutate, Random } from './fuzz-values.js';

/** One operation of the OpenAPI document, with what the fuzz needs to call it for real. */
export interface FuzzOperation {
  id: string;
  method: string;
  /** The path template, `{name}` for parameters. */
  template: string;
  pathParams: string[];
  queryParams: string[];
  /** `json` or `form` when the operation takes a body, with the body a real call sends. */
  bodyKind?: 'json' | 'form';
  seed?: Json;
  /** The body's top-level property names, which mutations add one at a time. */
  properties: string[];
  /** The query string a real call needs (required parameters), kept in every request. */
  query: string;
  /** The real value of each path parameter (DELETEs get unknown ids, keeping the fixtures). */
  realParams: Record<string, string>;
}

export interface FuzzRequest {
  method: string;
  /** Path and query string, already percent-encoded. */
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** What is wrong with it, for the report of a failing request. */
  label: string;
}

/** Path segments that name nothing: malformed, out of range, NUL, undecodable, unknown. */
export const BAD_IDS: readonly string[] = [
  '-'.repeat(36),
  'x',
  '0',
  '-1',
  '9223372036854775808',
  'null',
  '%00',
  'a%00b',
  '%FF',
  '%E0%A4%A',
  '00000000-0000-0000-0000-00000000000g',
  '{00000000-0000-4000-8000-000000000000}',
  '00000000000040008000000000000000',
  'ffffffff-ffff-ffff-ffff-fffffffffffff',
  encodeURIComponent("1' OR '1'='1"),
  encodeURIComponent('é'.repeat(20)),
  'A'.repeat(2000),
  '%2e%2e',
  '00000000-0000-4000-8000-000000000000',
];

/** Percent-encoded; a lone surrogate, which has no UTF-8 form, as the bytes of one. */
function queryValue(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

/** Query values: the bad strings short enough for a URL, bad numbers, list and bracket forms. */
const BAD_QUERY_VALUES: readonly string[] = [
  ...BAD_STRINGS.filter((value) => value.length < 4000).map(queryValue),
  ...BAD_NUMBERS.map((value) => encodeURIComponent(String(value))),
  'x'.repeat(4000),
  '%00',
  '%FF',
  '%',
  '1&{name}=2',
  '-1&{name}=%00',
];

const SAMPLE_QUERY_NAMES = ['organization_id', 'limit', 'offset', 'q', 'from', 'to'];

/** Bodies that are not what any operation takes, whatever its schema. */
const RAW_BODIES: readonly [string, string][] = [
  ['empty JSON body', ''],
  ['JSON null', 'null'],
  ['JSON array', '[]'],
  ['JSON string', '"x"'],
  ['JSON number', '123'],
  ['truncated JSON', '{"a":'],
  ['JSON with a NUL key', '{"\\u0000":1}'],
  ['JSON with a NUL value', '{"name":"\\u0000","email":"a\\u0000@example.com"}'],
  ['JSON 33 arrays deep', `{"a":${deepJson(32)}}`],
  ['JSON 10000 arrays deep', deepJson(10_000)],
  ['JSON 40 objects deep', deepJson(40, 'object')],
  ['JSON with a BOM', '\ufeff{}'],
  ['JSON with duplicate keys', '{"name":"a","name":{"x":1}}'],
  ['JSON with __proto__', '{"__proto__":{"admin":true},"constructor":{"prototype":{}}}'],
  ['JSON huge number', '{"name":1e999999,"limit":-1e999999}'],
];

const CONTENT_TYPES: readonly string[] = [
  'text/plain',
  'application/xml',
  'application/json; charset=utf-16',
  'application/json; charset=nonsense',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/merge-patch+json',
  'application/json, text/plain',
];

const CONTENT_ENCODINGS: readonly string[] = [
  'br',
  'compress',
  'gzip, gzip',
  'x-gzip',
  'zstd',
  '*',
];

const ENCODINGS = ['json', 'form'] as const;

function encode(kind: 'json' | 'form', value: Json): Buffer {
  if (kind === 'json') return Buffer.from(JSON.stringify(value));
  const form = new URLSearchParams();
  const fields = value && typeof value === 'object' && !Array.isArray(value) ? value : { v: value };
  for (const [key, field] of Object.entries(fields))
    form.append(key, typeof field === 'string' ? field : JSON.stringify(field));
  return Buffer.from(form.toString());
}

const CONTENT_TYPE = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
} as const;

/** Builds the requests for one operation: fixed cases first, then seeded random ones. */
export class RequestFactory {
  constructor(
    private readonly operation: FuzzOperation,
    private readonly rng: Random,
  ) {}

  private path(params: Record<string, string> = {}): string {
    const { template, realParams } = this.operation;
    return template.replace(/\{([^}]+)\}/g, (_match, name: string) =>
      name in params ? params[name] : encodeURIComponent(realParams[name]),
    );
  }

  private request(
    label: string,
    options: { path?: string; query?: string; body?: Buffer; headers?: Record<string, string> },
  ): FuzzRequest {
    const { method, bodyKind, seed } = this.operation;
    const hasBody = method !== 'GET' && bodyKind !== undefined;
    const body = options.body ?? (hasBody ? encode(bodyKind, seed ?? {}) : undefined);
    const headers: Record<string, string> =
      body && !options.headers?.['content-type'] && bodyKind
        ? { 'content-type': CONTENT_TYPE[bodyKind] }
        : {};
    const query = [this.operation.query, options.query].filter(Boolean).join('&');
    return {
      method,
      url: `${options.path ?? this.path()}${query ? `?${query}` : ''}`,
      headers: { ...headers, ...options.headers },
      body: method === 'GET' ? undefined : body,
      label,
    };
  }

  /** The real call, each path parameter malformed in turn, and the fixed body cases. */
  fixed(): FuzzRequest[] {
    const requests = [this.request('the real call', {})];
    for (const name of this.operation.pathParams)
      for (const bad of BAD_IDS.slice(0, 6))
        requests.push(this.request(`${name} := ${bad}`, { path: this.path({ [name]: bad }) }));
    requests.push(this.request('offset past 2^63', { query: 'offset=9223372036854775808' }));
    requests.push(this.request('NUL in the query', { query: 'organization_id=%00&q=%00' }));
    if (this.operation.method === 'GET') return requests;
    for (const [label, text] of RAW_BODIES)
      requests.push(
        this.request(label, {
          body: Buffer.from(text),
          headers: { 'content-type': CONTENT_TYPE.json },
        }),
      );
    const seed = encode('json', this.operation.seed ?? {});
    const json = { 'content-type': CONTENT_TYPE.json };
    requests.push(
      this.request('gzip that is not gzip', {
        body: seed,
        headers: { ...json, 'content-encoding': 'gzip' },
      }),
      this.request('truncated gzip', {
        body: gzipSync(seed).subarray(0, 12),
        headers: { ...json, 'content-encoding': 'gzip' },
      }),
      this.request('real gzip', {
        body: gzipSync(seed),
        headers: { ...json, 'content-encoding': 'gzip' },
      }),
      this.request('deflate of deep JSON', {
        body: deflateSync(deepJson(5000)),
        headers: { ...json, 'content-encoding': 'deflate' },
      }),
      this.request('br', { body: seed, headers: { ...json, 'content-encoding': 'br' } }),
      this.request('NUL in a form', {
        body: Buffer.from('name=a%00b&login=%00&x%00=1'),
        headers: { 'content-type': CONTENT_TYPE.form },
      }),
    );
    return requests;
  }

  /** One seeded random malformation of the path, the query, the body or its transport. */
  randomized(): FuzzRequest {
    const { pathParams, queryParams, method } = this.operation;
    const kinds = ['query', 'query', ...(pathParams.length ? ['path', 'path'] : [])];
    if (method !== 'GET') kinds.push('body', 'body', 'body', 'body', 'transport');
    switch (this.rng.pick(kinds)) {
      case 'path': {
        const name = this.rng.pick(pathParams);
        const bad = this.rng.pick(BAD_IDS);
        return this.request(`${name} := ${bad.slice(0, 40)}`, { path: this.path({ [name]: bad }) });
      }
      case 'query': {
        const names = [...queryParams, ...SAMPLE_QUERY_NAMES];
        const parts = Array.from({ length: 1 + this.rng.int(3) }, () => {
          const name = this.rng.pick(names);
          const value = this.rng.pick(BAD_QUERY_VALUES).replaceAll('{name}', name);
          return this.rng.int(8) === 0 ? `${name}[x]=${value}` : `${name}=${value}`;
        });
        const query = parts.join('&');
        return this.request(`query ${query.slice(0, 120)}`, { query });
      }
      case 'transport':
        return this.transport();
      default: {
        const kind = this.operation.bodyKind ?? this.rng.pick(ENCODINGS);
        const { value, label } = mutate(
          this.operation.seed ?? {},
          this.operation.properties,
          this.rng,
        );
        return this.request(`${kind} ${label}`, {
          body: encode(kind, value),
          headers: { 'content-type': CONTENT_TYPE[kind] },
        });
      }
    }
  }

  private transport(): FuzzRequest {
    const seed = encode('json', this.operation.seed ?? {});
    if (this.rng.int(2) === 0) {
      const type = this.rng.pick(CONTENT_TYPES);
      return this.request(`Content-Type ${type}`, {
        body: seed,
        headers: { 'content-type': type },
      });
    }
    const encoding = this.rng.pick(CONTENT_ENCODINGS);
    return this.request(`Content-Encoding ${encoding}`, {
      body: seed,
      headers: { 'content-type': CONTENT_TYPE.json, 'content-encoding': encoding },
    });
  }
}
