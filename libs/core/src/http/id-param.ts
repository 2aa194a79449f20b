import { Param, ParseUUIDPipe, SetMetadata } from '@nestjs/common';
import type { AppException } from '../errors/app-exception.js';
import { CoreErrorCode, CoreException } from '../errors/core-exception.js';

/** The textual form of a UUID that ids take in paths (what PostgreSQL prints). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const NOT_ID_PARAMS = 'platform:not-id-params';

/**
 * Path parameters named `id` or `<thing>_id` are row ids, UUIDs, on every route: the request
 * input interceptor answers anything else with 404 before the handler, as it answers an id that
 * names nothing, so a malformed id never reaches SQL. A route whose parameter is something else
 * (a signed token, a provider's name) or that answers unknown ids otherwise names it here, and
 * checks the value itself.
 */
export const NotIdParams = (...names: string[]): MethodDecorator & ClassDecorator =>
  SetMetadata(NOT_ID_PARAMS, names);

const isIdName = (name: string) => name === 'id' || name.endsWith('_id');

/** 404 `not_found` for the first id parameter that is not a UUID, or null. */
export function malformedIdParam(
  params: Record<string, unknown> | undefined,
  notIds: readonly string[] = [],
): AppException | null {
  for (const [name, value] of Object.entries(params ?? {})) {
    if (!isIdName(name) || notIds.includes(name)) continue;
    if (typeof value !== 'string' || !UUID_PATTERN.test(value))
      return new CoreException(CoreErrorCode.NotFound, 'Resource not found');
  }
  return null;
}

/** A UUID path parameter; anything else names nothing and answers 404, never a 500 from SQL. */
export const IdParam = (name: string): ParameterDecorator =>
  Param(
    name,
    new ParseUUIDPipe({
      exceptionFactory: () => new CoreException(CoreErrorCode.NotFound, 'Resource not found'),
    }),
  );
