import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { type AlertListFilter, containsPattern, SEARCH_SEPARATOR } from './alert-list-query.js';
import {
  ALERT_VIEW_COLUMNS,
  ALERT_VIEW_JOINS,
  type AlertView,
  alertView,
  type AlertViewRow,
} from './alert-view.js';

export interface AlertEventRow {
  id: string;
  alert_id: string;
  kind: string;
  details: Record<string, unknown>;
  created_at: Date;
}

/**
 * The WHERE clause of the list for alerts aliased `a`, its parameters appended to `params`
 * (`$1` is the project). Search goes through `a.search_text` alone, so the trigram index or
 * the covering list index can answer it; the per-field recheck only applies when the query
 * contains the separator and could otherwise match across two fields.
 */
function listConditions(filter: AlertListFilter, params: unknown[]): string {
  const conditions = ['a.project_id = $1'];
  if (filter.q !== null) {
    params.push(containsPattern(filter.q));
    const p = `$${params.length}`;
    conditions.push(`a.search_text LIKE lower(${p})`);
    if (filter.q.includes(SEARCH_SEPARATOR)) {
      conditions.push(`(left(a.fingerprint, 128) ILIKE ${p}
        OR left(coalesce(a.labels ->> 'alertname', ''), 128) ILIKE ${p}
        OR left(coalesce(a.annotations ->> 'summary', ''), 360) ILIKE ${p})`);
    }
  }
  if (filter.status !== null) {
    params.push(filter.status);
    conditions.push(`a.status = $${params.length}`);
  }
  if (filter.acknowledged !== null) {
    conditions.push(
      `${filter.acknowledged ? '' : 'NOT '}EXISTS (SELECT 1 FROM alert_acknowledgement k WHERE k.alert_id = a.id)`,
    );
  }
  return conditions.join(' AND ');
}

@Injectable()
export class AlertsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * A page of the project's alerts, most recently received first (ties by id descending), and
   * the number of matches. The page selects ids first (an index-only scan for unselective
   * searches, a trigram bitmap for selective ones) and joins the rows afterwards, so only the
   * page's rows are read in full. The count runs only when the page cannot tell it: a page
   * that is not full, and not past the end, ends the matches.
   */
  async list(
    projectId: string,
    filter: AlertListFilter,
  ): Promise<{ items: AlertView[]; total: number }> {
    // PostgreSQL text never holds NUL, so such a search matches nothing (and cannot be sent).
    if (filter.q?.includes('\u0000')) return { items: [], total: 0 };
    const params: unknown[] = [projectId];
    const where = listConditions(filter, params);
    const rows: AlertViewRow[] = await this.dataSource.query(
      `WITH page AS MATERIALIZED (
         SELECT a.id, a.last_received_at FROM alert a
          WHERE ${where}
          ORDER BY a.last_received_at DESC, a.id DESC
          LIMIT $${params.length + 1} OFFSET $${params.length + 2}
       )
       SELECT ${ALERT_VIEW_COLUMNS}
         FROM page JOIN alert a ON a.id = page.id
         ${ALERT_VIEW_JOINS}
        ORDER BY page.last_received_at DESC, page.id DESC`,
      [...params, filter.limit, filter.offset],
    );
    const items = rows.map(alertView);
    if (items.length < filter.limit && (items.length > 0 || filter.offset === 0))
      return { items, total: filter.offset + items.length };
    const [{ total }]: Array<{ total: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM alert a WHERE ${where}`,
      params,
    );
    return { items, total };
  }

  /** The views of those alerts of the project, in the order of `ids`; others are absent. */
  async findViews(
    projectId: string,
    ids: readonly string[],
    manager?: EntityManager,
  ): Promise<AlertView[]> {
    if (ids.length === 0) return [];
    const rows: AlertViewRow[] = await (manager ?? this.dataSource).query(
      `SELECT ${ALERT_VIEW_COLUMNS}
         FROM unnest($2::uuid[]) WITH ORDINALITY AS wanted (id, position)
         JOIN alert a ON a.id = wanted.id AND a.project_id = $1
         ${ALERT_VIEW_JOINS}
        ORDER BY wanted.position`,
      [projectId, ids],
    );
    return rows.map(alertView);
  }

  async findView(
    projectId: string,
    id: string,
    manager?: EntityManager,
  ): Promise<AlertView | null> {
    return (await this.findViews(projectId, [id], manager))[0] ?? null;
  }

  async exists(projectId: string, id: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      'SELECT 1 FROM alert WHERE id = $1 AND project_id = $2',
      [id, projectId],
    );
    return rows.length > 0;
  }

  /** A page of the alert's timeline, oldest first, with the number of events. */
  async events(
    projectId: string,
    alertId: string,
    limit: number,
    offset: number,
  ): Promise<{ items: AlertEventRow[]; total: number }> {
    const [items, counted] = await Promise.all([
      this.dataSource.query<AlertEventRow[]>(
        `SELECT id, alert_id, kind, details, created_at FROM alert_event
          WHERE alert_id = $1 AND project_id = $2
          ORDER BY created_at, id LIMIT $3 OFFSET $4`,
        [alertId, projectId, limit, offset],
      ),
      this.dataSource.query<Array<{ total: number }>>(
        'SELECT count(*)::int AS total FROM alert_event WHERE alert_id = $1 AND project_id = $2',
        [alertId, projectId],
      ),
    ]);
    const total = counted[0].total;
    return { items, total };
  }
}
