import { describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { malformedIdParam } from './id-param.js';
import {
  MAX_BODY_DEPTH,
  refuseBody,
  refuseContentEncoding,
  refuseParameters,
} from './input-rules.js';

const nested = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

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

  it('answers a NUL, at any depth, with 422 naming the field', () => {
    const refused = refuseBody({ preferences: [{ channel: 'email' }, { channel: 'in\u0000app' }] });
    const message = 'preferences[1].channel must not contain a NUL character (U+0000)';
    expect(refused).toMatchObject({
      status: 422,
      code: 'validation_failed',
      message: `Validation failed: ${message}`,
      details: { fields: [{ field: 'preferences[1].channel', messages: [message] }] },
    });
  });

  it('refuses a NUL in a key, shown escaped', () => {
    expect(refuseBody({ token: { 'na\u0000me': 'x' } })?.details).toEqual({
      fields: [
        {
          field: 'token.na\\u0000me',
          messages: ['token.na\\u0000me must not contain a NUL character (U+0000)'],
        },
      ],
    });
  });

  it('refuses a lone surrogate but keeps paired ones', () => {
    expect(refuseBody({ login: '\ud800@example.com' })).toMatchObject({
      code: 'validation_failed',
      message: 'Validation failed: login must be well-formed Unicode, not a lone surrogate',
    });
    expect(refuseBody({ name: 'Grüße 😀', tags: ['\u00e9', 1, null, true] })).toBeNull();
  });

  it('passes bodies that are not objects', () => {
    expect(refuseBody(undefined)).toBeNull();
    expect(refuseBody(42)).toBeNull();
  });
});

describe('path and query parameters', () => {
  it('answers a NUL in a value, a repeated value or a name with 422 naming the parameter', () => {
    expect(refuseParameters({ q: 'disk\u0000' })).toMatchObject({
      status: 422,
      code: 'validation_failed',
      details: {
        fields: [{ field: 'q', messages: ['q must not contain a NUL character (U+0000)'] }],
      },
    });
    expect(refuseParameters({ limit: '1', q: ['a', '\u0000'] })?.details).toMatchObject({
      fields: [{ field: 'q' }],
    });
    expect(refuseParameters({ 'q\u0000': '1' })?.details).toMatchObject({
      fields: [{ field: 'q\\u0000' }],
    });
  });

  it('passes parameters without one', () => {
    expect(refuseParameters({ q: '%00', feature_key: 'dns', list: ['a', 'b'] })).toBeNull();
    expect(refuseParameters(undefined)).toBeNull();
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
