import { describe, expect, it } from '@jest/globals';
import type { ArgumentMetadata } from '@nestjs/common';
import { AppException } from '../errors/app-exception.js';
import { invalidQueryParameter, PagingQuery, QueryBoolean, queryBoolean } from './query-params.js';
import { createValidationPipe } from './validation.js';

class ListQuery extends PagingQuery({ defaultLimit: 25, maxLimit: 200 }) {
  @QueryBoolean('a filter')
  unread?: 'true' | 'false';
}

const metadata: ArgumentMetadata = { type: 'query', metatype: ListQuery };
const pipe = createValidationPipe();

const parse = (query: Record<string, unknown>) =>
  pipe.transform(query, metadata) as Promise<ListQuery>;

/** The 422 the pipe answers, with the fields it names. */
async function refusal(query: Record<string, unknown>) {
  const error = await parse(query).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppException);
  const refused = error as AppException;
  expect([refused.status, refused.code]).toEqual([422, 'validation_failed']);
  return refused.details as { fields: Array<{ field: string; messages: string[] }> };
}

describe('query DTOs with paging', () => {
  it('defaults limit and offset when absent', async () => {
    expect(await parse({})).toMatchObject({ limit: 25, offset: 0 });
  });

  it('takes integer text as numbers', async () => {
    expect(await parse({ limit: '200', offset: '7', unread: 'false' })).toMatchObject({
      limit: 200,
      offset: 7,
      unread: 'false',
    });
  });

  it('ignores unknown parameters', async () => {
    const parsed = await parse({ limit: '3', future_filter: 'x' });
    expect(parsed.limit).toBe(3);
    expect(parsed).not.toHaveProperty('future_filter');
  });

  it.each(['abc', '1.5', '1e2', '0x10', ' 5', '', '0', '-3', '201'])(
    'refuses limit=%j naming limit',
    async (limit) => {
      const details = await refusal({ limit });
      expect(details.fields).toEqual([
        { field: 'limit', messages: ['limit must be an integer from 1 to 200'] },
      ]);
    },
  );

  it('refuses a repeated limit', async () => {
    const details = await refusal({ limit: ['1', '2'] });
    expect(details.fields.map((f) => f.field)).toEqual(['limit']);
  });

  it.each(['-1', 'xyz', '9223372036854775808'])(
    'refuses offset=%j naming offset',
    async (offset) => {
      const details = await refusal({ offset });
      expect(details.fields).toEqual([
        { field: 'offset', messages: ['offset must be an integer from 0 to 9007199254740991'] },
      ]);
    },
  );

  it('refuses a boolean that is not true or false, naming it', async () => {
    const details = await refusal({ unread: 'yes' });
    expect(details.fields).toEqual([
      { field: 'unread', messages: ['unread must be one of the following values: true, false'] },
    ]);
  });

  it('names every failing parameter at once', async () => {
    const details = await refusal({ limit: '0', offset: '-1', unread: 'maybe' });
    expect(details.fields.map((f) => f.field).sort()).toEqual(['limit', 'offset', 'unread']);
  });
});

describe('queryBoolean', () => {
  it('reads true, false and absent', () => {
    expect([queryBoolean('true'), queryBoolean('false'), queryBoolean(undefined)]).toEqual([
      true,
      false,
      undefined,
    ]);
  });
});

describe('invalidQueryParameter', () => {
  it('is the validation pipe’s 422 naming the one parameter', () => {
    const error = invalidQueryParameter('token', 'token should not be empty');
    expect([error.status, error.code, error.message]).toEqual([
      422,
      'validation_failed',
      'Validation failed: token should not be empty',
    ]);
    expect(error.details).toEqual({
      fields: [{ field: 'token', messages: ['token should not be empty'] }],
    });
  });
});
