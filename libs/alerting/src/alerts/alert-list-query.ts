export const ALERT_LIST_DEFAULT_LIMIT = 25;
export const ALERT_LIST_MAX_LIMIT = 200;

/**
 * Joins the searched fields in the search text (`alert.search_text`, copied to `alert_search`);
 * a query containing it is rechecked per field.
 */
export const SEARCH_SEPARATOR = '\u001f';

/** Longer search terms are selective enough to count each time; their totals are not kept. */
export const KEPT_TERM_MAX_LENGTH = 200;

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

/**
 * The term whose total the list keeps across requests, or null: a search without status or
 * acknowledged filter (status changes and acknowledgements do not touch the search rows whose
 * changes the kept totals follow), matched on the search text alone (no separator to recheck
 * per field), and of bounded length.
 */
export function keptTerm(filter: AlertListFilter): string | null {
  const { q, status, acknowledged } = filter;
  if (q === null || status !== null || acknowledged !== null) return null;
  if (q.includes(SEARCH_SEPARATOR) || q.length > KEPT_TERM_MAX_LENGTH) return null;
  return q;
}

/** A project's search generations and the kept total of a term (see `keptTerm`). */
export interface SearchGenerations {
  /** The project's latest generation; null: the project never had an alert. */
  generation: number | null;
  /** Counts as of an earlier generation than this cannot be brought forward (alerts went). */
  rewritten: number;
  /** The generation the kept total was counted at; null: none kept. */
  counted: number | null;
}

/**
 * How the total of a kept term is had: `kept` when nothing changed since it was counted;
 * `forward` when it can be brought forward (the kept total plus the matches among search rows
 * written since, less those among the texts of then replaced since); otherwise `count` afresh.
 */
export function keptTotalUse(g: SearchGenerations): 'kept' | 'forward' | 'count' {
  if (g.generation === null || g.counted === null || g.counted > g.generation) return 'count';
  if (g.counted === g.generation) return 'kept';
  return g.rewritten > g.counted ? 'count' : 'forward';
}

/**
 * How a search page is read once its total is known: `walk` the project's list index in order
 * and test the search text it covers, which reads about (offset + limit) × alerts / total
 * entries, or `collect` every match through the search index, fetch each one's alert for its
 * order and sort them. A collected match costs about as much as sixteen walked entries (a
 * search row, an alert probe and a sort slot against one index entry), so broad terms walk and
 * selective ones collect.
 */
export function searchPageStrategy(page: {
  total: number;
  alerts: number;
  limit: number;
  offset: number;
}): 'walk' | 'collect' {
  return (page.offset + page.limit) * page.alerts <= 16 * page.total * page.total
    ? 'walk'
    : 'collect';
}

/**
 * Whether a search counts in the project's search texts held in memory rather than bringing
 * its kept total forward in SQL (when both can tell): the texts when no total is kept, or
 * when they are newer than the kept total and the alerts added since it would cost more to
 * count in SQL than a scan of the texts. A scan costs about as much per held alert as a
 * hundredth of an alert counted in SQL (an index entry, a heap row and LIKE).
 */
export function countsInHeldTexts(w: {
  use: 'forward' | 'count';
  /** The generation the held texts stand at. */
  textsGeneration: number;
  textsAlerts: number;
  /** The generation the kept total was counted at (with `forward`). */
  countedAt: number | null;
  /** Alerts added since the kept total was counted (with `forward`). */
  addedSinceCounted: number;
}): boolean {
  if (w.use === 'count') return true;
  return w.textsGeneration > w.countedAt! && 100 * w.addedSinceCounted > w.textsAlerts;
}
