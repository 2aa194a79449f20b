export const ALERT_LIST_DEFAULT_LIMIT = 25;
export const ALERT_LIST_MAX_LIMIT = 200;

/** Joins the searched fields in `alert.search_text`; a query containing it is rechecked per field. */
export const SEARCH_SEPARATOR = '\u001f';

export interface AlertListFilter {
  /** The raw search text; null: no search. */
  q: string | null;
  status: 'firing' | 'resolved' | null;
  acknowledged: boolean | null;
  limit: number;
  offset: number;
}

/** A query parameter as one string: repeated parameters count by their first value. */
function single(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

function integer(value: unknown): number | null {
  const text = single(value)?.trim();
  return text !== undefined && /^[+-]?\d+$/.test(text) ? Number(text) : null;
}

/**
 * The list's query parameters as the spec reads them, never an error: unknown `status` and
 * `acknowledged` values apply no filter, `limit` defaults to 25 and is clamped to 1..200,
 * `offset` defaults to 0 and is floored at 0 (anything that is not an integer takes the
 * default). An empty `q` searches nothing; any other `q` is matched literally, spaces included.
 */
export function parseAlertListQuery(query: {
  q?: unknown;
  status?: unknown;
  acknowledged?: unknown;
  limit?: unknown;
  offset?: unknown;
}): AlertListFilter {
  const q = single(query.q);
  const status = single(query.status);
  const acknowledged = single(query.acknowledged);
  return {
    q: q === undefined || q === '' ? null : q,
    status: status === 'firing' || status === 'resolved' ? status : null,
    acknowledged: acknowledged === 'true' ? true : acknowledged === 'false' ? false : null,
    ...parsePaging(query, ALERT_LIST_DEFAULT_LIMIT, ALERT_LIST_MAX_LIMIT),
  };
}

/** `limit` clamped to 1..max (default when not an integer), `offset` floored at 0. */
export function parsePaging(
  query: { limit?: unknown; offset?: unknown },
  defaultLimit: number,
  maxLimit: number,
): { limit: number; offset: number } {
  const limit = integer(query.limit);
  const offset = integer(query.offset);
  return {
    limit: limit === null ? defaultLimit : Math.min(maxLimit, Math.max(1, limit)),
    offset: offset === null ? 0 : Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, offset)),
  };
}

/** A LIKE pattern matching `text` anywhere, with `\`, `%` and `_` taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
