import type { Request } from 'express';
import type { AppException } from '../errors/app-exception.js';
import { CoreErrorCode, CoreException } from '../errors/core-exception.js';

/**
 * Rules every request's input passes before a handler sees it, whatever the route: no field
 * anywhere holds a NUL character (PostgreSQL refuses U+0000 in text and jsonb, and no field of
 * the API has a use for it) or a lone surrogate (a JSON `\ud800` escape: text that is not
 * Unicode, which validators choke on and PostgreSQL could only store altered), a body nests at
 * most MAX_BODY_DEPTH levels, and a body arrives in an encoding the API decodes.
 */

/** Containers (objects, arrays) in a body nest at most this deep; the body itself is level 1. */
export const MAX_BODY_DEPTH = 32;

/** The Content-Encoding values a body may be sent with; anything else is a 415. */
export const ACCEPTED_CONTENT_ENCODINGS: readonly string[] = ['identity', 'gzip', 'deflate'];

const NUL = '\u0000';

/** A surrogate that is not half of a pair (`u` mode reads a pair as one code point). */
const LONE_SURROGATE = /\p{Cs}/u;

const refusedText = (text: string) => text.includes(NUL) || LONE_SURROGATE.test(text);

type Location = 'path' | 'query' | 'body';

function characterRefused(location: Location, text: string, field?: string): AppException {
  const where = field ? `the ${location} at ${field}` : `the ${location}`;
  const what = text.includes(NUL)
    ? 'a NUL character (U+0000)'
    : 'text that is not well-formed Unicode (a lone surrogate)';
  return new CoreException(
    CoreErrorCode.BadRequest,
    `The request contains ${what} in ${where}; no field accepts it`,
    { details: field ? { location, field } : { location } },
  );
}

/**
 * A NUL in the path or query string, which only `%00` produces once decoded (the HTTP parser
 * refuses a raw one). Checked on the raw URL, so path parameters and repeated or oddly named
 * query parameters are covered before anything decodes them.
 */
export function refuseUrl(request: Request): AppException | null {
  const url = request.originalUrl;
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  if (/%00/i.test(path)) return characterRefused('path', NUL);
  if (queryStart !== -1 && /%00/i.test(url.slice(queryStart)))
    return characterRefused('query', NUL);
  return null;
}

/** 415 for a Content-Encoding the API does not decode (`br`, `compress`, lists, unknown tokens). */
export function refuseContentEncoding(request: Request): AppException | null {
  const header = request.headers['content-encoding'];
  if (header === undefined) return null;
  const encoding = header.trim().toLowerCase();
  if (encoding === '' || ACCEPTED_CONTENT_ENCODINGS.includes(encoding)) return null;
  return new CoreException(
    CoreErrorCode.UnsupportedMediaType,
    `Content-Encoding "${header.slice(0, 40)}" is not supported; send ${ACCEPTED_CONTENT_ENCODINGS.join(', ')}`,
  );
}

type BodyProblem =
  { kind: 'character'; text: string; segments: (string | number)[] } | { kind: 'deep' };

function visit(value: unknown, depth: number): BodyProblem | null {
  if (typeof value === 'string')
    return refusedText(value) ? { kind: 'character', text: value, segments: [] } : null;
  if (typeof value !== 'object' || value === null) return null;
  if (depth > MAX_BODY_DEPTH) return { kind: 'deep' };
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const problem = visit(value[index], depth + 1);
      if (problem?.kind === 'character') problem.segments.unshift(index);
      if (problem) return problem;
    }
    return null;
  }
  for (const [key, child] of Object.entries(value)) {
    if (refusedText(key)) return { kind: 'character', text: key, segments: [key] };
    const problem = visit(child, depth + 1);
    if (problem?.kind === 'character') problem.segments.unshift(key);
    if (problem) return problem;
  }
  return null;
}

/** `preferences[1].channel`; a refused character in a name is shown as its escape. */
function fieldName(segments: (string | number)[]): string {
  const escape = (name: string) =>
    [...name]
      .map((c) => (refusedText(c) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c))
      .join('');
  return segments
    .map((segment, index) =>
      typeof segment === 'number' ? `[${segment}]` : `${index === 0 ? '' : '.'}${escape(segment)}`,
    )
    .join('');
}

/**
 * A parsed body (JSON or form) that nests too deep or holds a NUL or lone surrogate in any key
 * or string value; one walk over what was parsed, which stops at the first problem and at the
 * depth limit.
 */
export function refuseBody(body: unknown): AppException | null {
  const problem = visit(body, 1);
  if (!problem) return null;
  if (problem.kind === 'deep') {
    return new CoreException(
      CoreErrorCode.BadRequest,
      `The request body nests deeper than ${MAX_BODY_DEPTH} levels`,
    );
  }
  const field = problem.segments.length ? fieldName(problem.segments) : undefined;
  return characterRefused('body', problem.text, field);
}
