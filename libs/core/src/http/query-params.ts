import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { buildMessage, IsIn, IsOptional, ValidateBy } from 'class-validator';
import { CoreErrorCode, CoreException } from '../errors/core-exception.js';
import type { ErrorDoc } from '../openapi/api-responses.js';

/**
 * Query parameters are validated like bodies: a query DTO taken with `@Query()` goes through
 * the global validation pipe, so an invalid value answers 422 `validation_failed` with
 * `details.fields` naming the parameter, and unknown parameters are ignored (forward
 * compatible). Only the parameters the spec pins as lenient (the alert list's filters and
 * paging, the notification list's `limit`) are parsed by hand and never refused.
 *
 * - Integers are decimal digits (an optional sign); `1.5`, `1e2`, `0x10`, an empty value or a
 *   repeated parameter are not integers.
 * - `limit` outside 1..max and `offset` below 0 or past 2^53 - 1 are refused, not clamped;
 *   the one message names the range (`limit must be an integer from 1 to 200`).
 */

/** Integer text becomes a number; anything else stays as sent, for the validator to name. */
export const QueryInteger = () =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^[+-]?\d+$/.test(value) ? Number(value) : value,
  );

/** One message for any failure (not a number, a fraction, out of range), with the range. */
export const IsIntegerFrom = (min: number, max: number) =>
  ValidateBy({
    name: 'isIntegerFrom',
    constraints: [min, max],
    validator: {
      validate: (value: unknown) =>
        typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max,
      defaultMessage: buildMessage(
        (each) => `${each}$property must be an integer from ${min} to ${max}`,
      ),
    },
  });

export interface PagingOptions {
  defaultLimit: number;
  maxLimit: number;
}

/** The shape of a page request once validated. */
export interface Paging {
  limit: number;
  offset: number;
}

/** `limit`: an integer in 1..max; the DTO's initializer gives the default. */
export const QueryLimit = ({ defaultLimit, maxLimit }: PagingOptions) =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: 1,
      maximum: maxLimit,
      default: defaultLimit,
      description: `page size, 1..${maxLimit}; anything else answers 422`,
    }),
    IsOptional(),
    QueryInteger(),
    IsIntegerFrom(1, maxLimit),
  );

/** `offset`: a non-negative integer, at most 2^53 - 1 (exact, and within PostgreSQL's bigint). */
export const QueryOffset = () =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      default: 0,
      description: 'how many to skip; a negative or non-integer value answers 422',
    }),
    IsOptional(),
    QueryInteger(),
    IsIntegerFrom(0, Number.MAX_SAFE_INTEGER),
  );

/**
 * A query DTO class with `limit` (default and maximum as given) and `offset` (default 0).
 * Extend it per list, adding the list's own filters: `class XQuery extends PagingQuery({...})`.
 */
export function PagingQuery(options: PagingOptions) {
  class PagingQueryDto implements Paging {
    @QueryLimit(options)
    limit: number = options.defaultLimit;

    @QueryOffset()
    offset: number = 0;
  }
  return PagingQueryDto;
}

/** An optional `true`/`false` query parameter; other values answer 422. */
export const QueryBoolean = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ enum: ['true', 'false'], description }),
    IsOptional(),
    IsIn(['true', 'false']),
  );

/** `'true'` → true, `'false'` → false, absent → undefined (after `QueryBoolean` validation). */
export const queryBoolean = (value: 'true' | 'false' | undefined): boolean | undefined =>
  value === undefined ? undefined : value === 'true';

/** The 422 of a route with validated query parameters, naming them for the OpenAPI document. */
export const invalidQueryDoc = (rules: string): ErrorDoc => [
  422,
  'validation_failed',
  `${rules}; \`details.fields\` names each failing parameter with its messages`,
];

/**
 * The 422 the validation pipe answers, for a route that checks a query parameter by hand
 * (one that answers HTML to browsers and JSON to clients, say).
 */
export function invalidQueryParameter(field: string, message: string) {
  return new CoreException(CoreErrorCode.ValidationFailed, `Validation failed: ${message}`, {
    details: { fields: [{ field, messages: [message] }] },
  });
}
