import type { TestApp } from '@platform/testing';
import type { Test } from 'supertest';
import { bearer, type TestAccount } from '../identity.js';

/** Whom a client acts as: an account (its session), a bearer token, or nobody. */
export type Credential = TestAccount | string | null;

/**
 * How a client's methods answer. `data` sends typed bodies, asserts the operation's documented
 * success status and resolves the typed `data` of the answer. `raw` takes bodies whose fields
 * may hold any value and returns the supertest request: awaiting it gives the response
 * whatever its status, and `.expect(...)` works on it as on any supertest request.
 */
export type Mode = 'data' | 'raw';

/** A documented response type as JSON carries it: dates arrive as ISO 8601 strings. */
export type Wire<T> = T extends Date
  ? string
  : T extends ReadonlyArray<infer Item>
    ? Wire<Item>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

/**
 * A body with the fields of `Body` holding values of any type: what a test sends to see it
 * refused. A misspelt field name still fails to compile.
 */
export type Loose<Body> = { [K in keyof Body]?: unknown };

export type Input<M extends Mode, Body> = M extends 'data' ? Body : Loose<Body>;
export type Output<M extends Mode, Data> = M extends 'data' ? Promise<Wire<Data>> : Test;

/** Query parameters; undefined ones are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** The requests of one client: path, body and the documented success status of each call. */
export interface Http<M extends Mode> {
  get<Data>(path: string, query?: Query): Output<M, Data>;
  post<Data>(path: string, body: unknown, status: number, query?: Query): Output<M, Data>;
  put<Data>(path: string, body: unknown): Output<M, Data>;
  patch<Data>(path: string, body: unknown, query?: Query): Output<M, Data>;
  delete<Data = void>(path: string, status?: number, query?: Query): Output<M, Data>;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A path segment from a value of the test: ids, tokens, keys. */
export const segment = (value: string): string => encodeURIComponent(value);

export function createHttp<M extends Mode>(t: TestApp, credential: Credential, mode: M): Http<M> {
  const token = typeof credential === 'string' ? credential : credential?.jwt;

  const request = (method: Method, path: string, body: unknown, query?: Query): Test => {
    let req = t.request()[method](path);
    if (token) req = req.set(bearer(token));
    if (query) req = req.query(definedOnly(query));
    if (body !== undefined) req = req.send(body as object);
    return req;
  };

  const call = (method: Method, path: string, status: number, body?: unknown, query?: Query) => {
    const req = request(method, path, body, query);
    return (mode === 'raw' ? req : dataOf(req, method, path, status)) as Output<M, never>;
  };

  return {
    get: (path, query) => call('get', path, 200, undefined, query),
    post: (path, body, status, query) => call('post', path, status, body, query),
    put: (path, body) => call('put', path, 200, body),
    patch: (path, body, query) => call('patch', path, 200, body, query),
    delete: (path, status = 204, query) => call('delete', path, status, undefined, query),
  };
}

async function dataOf(req: Test, method: Method, path: string, status: number): Promise<unknown> {
  const res = await req;
  if (res.status !== status) {
    throw new Error(
      `${method.toUpperCase()} ${path} answered ${res.status}, not ${status}: ${JSON.stringify(res.body)}`,
    );
  }
  return status === 204 ? undefined : (res.body as { data: unknown }).data;
}

function definedOnly(query: Query): Record<string, string | number | boolean> {
  return Object.fromEntries(
    Object.entries(query).filter(([, value]) => value !== undefined),
  ) as Record<string, string | number | boolean>;
}
