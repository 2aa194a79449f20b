import { describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { malformedIdParam } from './id-param.js';
import { MAX_BODY_DEPTH, refuseBody, refuseContentEncoding, refuseUrl } from './input-rules.js';

const nested = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

const urlRequest = (originalUrl: string) => ({ originalUrl }) as Request;
const encodingRequest = (encoding?: string) =>
  ({ headers: encoding === undefined ? {} : { 'content-encoding': encoding } }) as Request;

describe('body input rules', () => {
  it(`allows ${MAX_BODY_DEPTH} levels of nesting and refuses one more`, () => {
    expect(refuseBody(nested(MAX_BODY_DEPTH))).toBeNull();
    const refused = refuseBody(nested(MAX_BODY_DEPTH + 1));
    expect(refused).toMatchObject({
      status: 400,
      code: 'bad_request',
      message: 'The request body nests deeper than 32 levels',
    });
  });

  it('stops at the depth limit, however deep the body goes', () => {
    expect(refuseBody(nested(100_000))?.message).toBe(
      'The request body nests deeper than 32 levels',
    );
  });

  it('names the field holding a NUL, at any depth', () => {
    const refused = refuseBody({ preferences: [{ channel: 'email' }, { channel: 'in\u0000app' }] });
    expect(refused).toMatchObject({
      status: 400,
      code: 'bad_request',
      message:
        'The request contains a NUL character (U+0000) in the body at preferences[1].channel; no field accepts it',
      details: { location: 'body', field: 'preferences[1].channel' },
    });
  });

  it('refuses a NUL in a key, shown escaped', () => {
    expect(refuseBody({ token: { 'na\u0000me': 'x' } })?.details).toEqual({
      location: 'body',
      field: 'token.na\\u0000me',
    });
  });

  it('refuses a lone surrogate but keeps paired ones', () => {
    expect(refuseBody({ login: '\ud800@example.com' })).toMatchObject({
      code: 'bad_request',
      message:
        'The request contains text that is not well-formed Unicode (a lone surrogate) in the body at login; no field accepts it',
    });
    expect(refuseBody({ name: 'Grüße 😀', tags: ['\u00e9', 1, null, true] })).toBeNull();
  });

  it('passes bodies that are not objects', () => {
    expect(refuseBody(undefined)).toBeNull();
    expect(refuseBody(42)).toBeNull();
  });
});

describe('URL input rules', () => {
  it('refuses %00 in the path and in the query, in either case', () => {
    expect(refuseUrl(urlRequest('/legal/a%00b'))?.details).toEqual({ location: 'path' });
    expect(refuseUrl(urlRequest('/notifications?offset=1&q=%00'))?.details).toEqual({
      location: 'query',
    });
    expect(refuseUrl(urlRequest('/x?%00=1'))?.code).toBe('bad_request');
  });

  it('passes an escaped percent sign followed by zeros', () => {
    expect(refuseUrl(urlRequest('/alerts?q=%2500'))).toBeNull();
  });
});

describe('Content-Encoding', () => {
  it('accepts identity, gzip and deflate in any case, and no header', () => {
    for (const encoding of [undefined, '', 'identity', 'gzip', 'GZIP', ' deflate '])
      expect(refuseContentEncoding(encodingRequest(encoding))).toBeNull();
  });

  it('answers anything else with 415 unsupported_media_type', () => {
    for (const encoding of ['br', 'compress', 'gzip, gzip', 'x-gzip', 'zstd', '*'])
      expect(refuseContentEncoding(encodingRequest(encoding))).toMatchObject({
        status: 415,
        code: 'unsupported_media_type',
      });
    expect(refuseContentEncoding(encodingRequest('br'))?.message).toBe(
      'Content-Encoding "br" is not supported; send identity, gzip, deflate',
    );
  });
});

describe('id path parameters', () => {
  const uuid = '0b6f3a52-9c1e-4d7a-8f00-2a1b3c4d5e6f';

  it('answers 404 for an id or *_id parameter that is not a UUID', () => {
    for (const bad of ['-'.repeat(36), 'x', '', `{${uuid}}`, uuid.replaceAll('-', '')])
      expect(malformedIdParam({ project_id: uuid, id: bad })).toMatchObject({
        status: 404,
        code: 'not_found',
      });
    expect(malformedIdParam({ alert_id: '9223372036854775808' })?.code).toBe('not_found');
  });

  it('passes UUIDs in either case, other parameters and the ones a route says are not ids', () => {
    expect(malformedIdParam({ id: uuid.toUpperCase(), step_id: uuid })).toBeNull();
    expect(malformedIdParam({ feature_key: 'x', token: '-'.repeat(36) })).toBeNull();
    expect(malformedIdParam({ signed_id: 'abc.def' }, ['signed_id'])).toBeNull();
    expect(malformedIdParam(undefined)).toBeNull();
  });
});
