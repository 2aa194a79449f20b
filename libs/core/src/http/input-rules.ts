import type { Request } from 'express';
import type { AppException } from '../errors/app-exception.js';
import { CoreErrorCode, CoreException } from '../errors/core-exception.js';

/**
 * Rules every request's input passes before a handler sees it, whatever the route: no field
 * anywhere (path and query parameters, body keys and values) holds a NUL character (PostgreSQL
 * refuses U+0000 in text and jsonb, and no field of the API has a use for it) or a lone
 * surrogate (a JSON `\ud800` escape: text that is not Unicode, which validators choke on and
 * PostgreSQL could only store altered), which is a 422 naming the field like any other
 * validation failure; a body nests at most MAX_BODY_DEPTH levels and arrives in an encoding the
 * API decodes.
 */

/** Containers (objects, arrays) in a body nest at most this deep; the body itself is level 1. */
export const MAX_BODY_DEPTH = 32;

/** The Content-Encoding values a body may be sent with; anything else is a 415. */
export const ACCEPTED_CONTENT_ENCODINGS: readonly string[] = ['identity', 'gzip', 'deflate'];

const NUL = '\u0000';

/** A surrogate that is not half of a pair (`u` mode reads a pair as one code point). */
const LONE_SURROGATE = /\p{Cs}/u;

const refusedText = (text: string) => text.includes(NUL) || LONE_SURROGATE.test(text);

/** The messages of a field holding refused text, as the validation pipe words its own. */
function textRefused(field: string, text: string): AppException {
  const message = text.includes(NUL)
    ? `${field} must not contain a NUL character (U+0000)`
    : `${field} must be well-formed Unicode, not a lone surrogate`;
  return new CoreException(CoreErrorCode.ValidationFailed, `Validation failed: ${message}`, {
    details: { fields: [{ field, messages: [message] }] },
  });
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
 * A parsed body (JSON or form) that nests too deep (400) or holds a NUL or lone surrogate in any
 * key or string value (422 naming the field); one walk over what was parsed, which stops at the
 * first problem and at the depth limit.
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
  return textRefused(problem.segments.length ? fieldName(problem.segments) : 'body', problem.text);
}

/**
 * A decoded path parameter or query parameter (its name or a value) holding a NUL (`%00`) or a
 * lone surrogate: 422 naming the parameter.
 */
export function refuseParameters(
  parameters: Record<string, unknown> | undefined,
): AppException | null {
  const problem = visit(parameters ?? {}, 1);
  if (problem?.kind !== 'character') return null;
  return textRefused(fieldName(problem.segments.slice(0, 1)), problem.text);
}
