import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import {
  type AlertListFilter,
  containsPattern,
  countsInHeldTexts,
  keptTotalUse,
  keptTerm,
  SEARCH_SEPARATOR,
  searchPageStrategy,
} from './alert-list-query.js';
import {
  ALERT_VIEW_COLUMNS,
  ALERT_VIEW_JOINS,
  alertView,
  type AlertViewRow,
} from './alert-view.js';
import type { Alert } from './alerts.openapi.js';
import { AlertSearchTexts } from './alert-search-texts.js';

export interface AlertEventRow {
  id: string;
  alert_id: string;
  kind: string;
  details: Record<string, unknown>;
  created_at: Date;
}

/** The project's search state and the kept total of the term (bigint columns as text). */
interface SearchStateRow {
  generation: string | null;
  rewritten_generation: string | null;
  alerts: string | null;
  counted_generation: string | null;
  counted_total: string | null;
  /** The project's alerts when the kept total was counted. */
  counted_alerts: string | null;
  /** The search index answers the term exactly: one or two characters, no separator. */
  exact: boolean | null;
  /** lower(term), as the search texts hold it. */
  lowered_term: string | null;
}

/** How a search's total was had: see `AlertsRepository.totalBeforePage`. */
export type SearchTotalSource = 'kept' | 'memory' | 'forward' | 'counted';

/**
 * The statements of one list request for alerts aliased `a` and search rows aliased `s`. `$1`
 * is the project; the query, its LIKE pattern and the filters take the next parameters as a
 * statement first uses them.
 */
class ListStatements {
  readonly params: unknown[];
  private readonly search: boolean;
  private readonly fieldwise: boolean;
  private qParam?: string;
  private patternParam?: string;

  constructor(
    projectId: string,
    private readonly filter: AlertListFilter,
  ) {
    this.params = [projectId];
    this.search = filter.q !== null;
    this.fieldwise = filter.q?.includes(SEARCH_SEPARATOR) ?? false;
  }

  private param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  private get q(): string {
    return (this.qParam ??= this.param(this.filter.q));
  }

  private get pattern(): string {
    return (this.patternParam ??= this.param(containsPattern(this.filter.q!)));
  }

  /**
   * Status and acknowledgement of `a`; with a separator in the query, the per-field recheck
   * that keeps it from matching across two fields.
   */
  private alertConditions(): string {
    const conditions = ['a.project_id = $1'];
    if (this.fieldwise) {
      const p = this.pattern;
      conditions.push(`(left(a.fingerprint, 128) ILIKE ${p}
        OR left(coalesce(a.labels ->> 'alertname', ''), 128) ILIKE ${p}
        OR left(coalesce(a.annotations ->> 'summary', ''), 360) ILIKE ${p})`);
    }
    if (this.filter.status !== null)
      conditions.push(`a.status = ${this.param(this.filter.status)}`);
    if (this.filter.acknowledged !== null) {
      conditions.push(
        `${this.filter.acknowledged ? '' : 'NOT '}EXISTS (SELECT 1 FROM alert_acknowledgement k WHERE k.alert_id = a.id)`,
      );
    }
    return conditions.join(' AND ');
  }

  /**
   * The project's search rows matching the query, through the key index. The keys already
   * hold the project: filtered inside, `s.project_id` would let the planner add the project's
   * every row from another index to the bitmap.
   */
  private matches(exact: boolean): string {
    return `(SELECT s.alert_id, s.project_id FROM alert_search s
              WHERE alert_search_keys(s.project_id, s.search_text) COLLATE "C"
                    @> alert_search_query_keys($1, ${this.q})${
                      exact ? '' : ` AND s.search_text LIKE lower(${this.pattern})`
                    }
             OFFSET 0) s`;
  }

  /** Every match; joined with the alerts only when a condition of theirs applies. */
  count(exact: boolean): string {
    if (!this.search)
      return `SELECT count(*) AS total FROM alert a WHERE ${this.alertConditions()}`;
    const alerts =
      this.fieldwise || this.filter.status !== null || this.filter.acknowledged !== null;
    return `SELECT count(*) AS total FROM ${this.matches(exact)}
              ${alerts ? `JOIN alert a ON a.id = s.alert_id AND ${this.alertConditions()}` : ''}
             WHERE s.project_id = $1`;
  }

  /**
   * How the number of matches changed after `generation`: plus those among the search rows
   * written after it, less those among the texts of then replaced after it.
   */
  countChangeSince(generation: number): string {
    const g = this.param(generation);
    return `SELECT (SELECT count(*) FROM alert_search s
                     WHERE s.project_id = $1 AND s.generation > ${g}
                       AND s.search_text LIKE lower(${this.pattern}))
                 - (SELECT count(*) FROM alert_search_replaced r
                     WHERE r.project_id = $1 AND r.generation > ${g}
                       AND r.written_generation <= ${g}
                       AND r.search_text LIKE lower(${this.pattern})) AS total`;
  }

  /**
   * The page's rows, its ids chosen first so that only they are read in full. A walk reads
   * the search text from the list index, which covers it.
   */
  page(strategy: 'walk' | 'collect', exact: boolean): string {
    const where = this.alertConditions();
    const from =
      strategy === 'walk'
        ? `alert a WHERE ${where}${this.search ? ` AND a.search_text LIKE lower(${this.pattern})` : ''}`
        : `${this.matches(exact)} JOIN alert a ON a.id = s.alert_id
           WHERE s.project_id = $1 AND ${where}`;
    return `WITH page AS MATERIALIZED (
              SELECT a.id, a.last_received_at FROM ${from}
               ORDER BY a.last_received_at DESC, a.id DESC
               LIMIT ${this.param(this.filter.limit)} OFFSET ${this.param(this.filter.offset)}
            )
            SELECT ${ALERT_VIEW_COLUMNS}
              FROM page JOIN alert a ON a.id = page.id
              ${ALERT_VIEW_JOINS}
             ORDER BY page.last_received_at DESC, page.id DESC`;
  }
}

/** A total counted in the request, to be kept for later ones. */
interface CountedTotal {
  term: string;
  generation: number;
  rewritten: number;
  total: number;
  /** The project's alerts at `generation`. */
  alerts: number;
}

/** The total as known before the page is read (null: only the page or a count can tell). */
interface TotalBeforePage {
  total: number | null;
  counted: CountedTotal | null;
  /** For a search (null otherwise). */
  source: SearchTotalSource | null;
}

const count = async (
  manager: EntityManager,
  statements: ListStatements,
  sql: string,
): Promise<number> => {
  const [row]: Array<{ total: string }> = await manager.query(sql, statements.params);
  return Number(row.total);
};

@Injectable()
export class AlertsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly searchTexts: AlertSearchTexts,
  ) {}

  /**
   * A page of the project's alerts, most recently received first (ties by id descending), and
   * the exact number of matches, read in one snapshot:
   *
   * - the total comes first where it is cheap or needed (see `totalBeforePage`);
   * - no page is read when the total says it is empty; otherwise, for a search, the total and
   *   the project's size choose between walking the list in order and collecting the matches
   *   (`searchPageStrategy`);
   * - a total counted here is kept afterwards for the next request of the term, and the
   *   project's search texts are brought up to date in the background (`AlertSearchTexts`).
   */
  async list(
    projectId: string,
    filter: AlertListFilter,
  ): Promise<{ items: Alert[]; total: number; source: SearchTotalSource | null }> {
    // PostgreSQL text never holds NUL, so such a search matches nothing (and cannot be sent).
    if (filter.q?.includes('\u0000')) return { items: [], total: 0, source: null };
    const term = keptTerm(filter);
    const { items, total, counted, source, state } = await this.dataSource.transaction(
      'REPEATABLE READ',
      async (manager) => {
        const state = await this.searchState(manager, projectId, filter.q, term);
        const exact = state.exact === true;
        const { total, counted, source } = await this.totalBeforePage(
          manager,
          projectId,
          filter,
          term,
          state,
        );
        if (total !== null && (total === 0 || filter.offset >= total))
          return { items: [], total, counted, source, state };
        const strategy =
          filter.q === null || total === null
            ? 'walk'
            : searchPageStrategy({
                total,
                alerts: Number(state.alerts ?? 0),
                limit: filter.limit,
                offset: filter.offset,
              });
        const statements = new ListStatements(projectId, filter);
        const rows: AlertViewRow[] = await manager.query(
          statements.page(strategy, exact),
          statements.params,
        );
        const items = rows.map(alertView);
        if (total !== null) return { items, total, counted, source, state };
        // A page that is not full, and not past the end, ends the matches.
        if (items.length < filter.limit && (items.length > 0 || filter.offset === 0))
          return { items, total: filter.offset + items.length, counted, source, state };
        const counting = new ListStatements(projectId, filter);
        const matches = await count(manager, counting, counting.count(exact));
        return { items, total: matches, counted, source, state };
      },
    );
    if (counted !== null) await this.keep(projectId, counted);
    if (term !== null && state.generation !== null) {
      this.searchTexts.refresh(
        projectId,
        Number(state.generation),
        Number(state.rewritten_generation ?? 0),
      );
    }
    return { items, total, source };
  }

  /**
   * The project's search state and the kept total of the term. Plans in the list's transaction
   * are cheap when run and often costed high (a walk that stops early looks like a full scan):
   * JIT compilation and parallel workers would cost more than they save, so they are off until
   * the transaction ends.
   */
  private async searchState(
    manager: EntityManager,
    projectId: string,
    q: string | null,
    term: string | null,
  ): Promise<SearchStateRow> {
    const [state]: SearchStateRow[] = await manager.query(
      `SELECT set_config('jit', 'off', true),
              set_config('max_parallel_workers_per_gather', '0', true),
              st.generation, st.rewritten_generation, st.alerts,
              c.generation AS counted_generation, c.total AS counted_total,
              c.alerts AS counted_alerts,
              length(lower($2::text)) <= 2 AND strpos($2, chr(30)) = 0
                AND strpos($2, chr(31)) = 0 AS exact,
              lower($3::text) AS lowered_term
         FROM (SELECT 1) AS one
         LEFT JOIN alert_search_state st ON st.project_id = $1
         LEFT JOIN alert_search_total c ON c.project_id = $1 AND c.term = lower($3::text)`,
      [projectId, q, term],
    );
    return state;
  }

  /**
   * Without search or filter, the project's alert count. A search without filter takes its
   * kept total when nothing changed since it was counted; otherwise it counts its matches in
   * the project's search texts held in memory when they can tell (`AlertSearchTexts.usable`),
   * or brings the kept total forward by the change since when it can (no alert went), or is
   * counted in SQL (see `keptTotalUse`). Other searches are counted in SQL.
   * Filters without search are counted only when the page cannot tell (null here).
   */
  private async totalBeforePage(
    manager: EntityManager,
    projectId: string,
    filter: AlertListFilter,
    term: string | null,
    state: SearchStateRow,
  ): Promise<TotalBeforePage> {
    const generation = state.generation === null ? null : Number(state.generation);
    if (filter.q === null) {
      const plain = filter.status === null && filter.acknowledged === null;
      // No state row: a project that never had an alert, or alerts written around the
      // triggers; the page and a count tell.
      const total = plain && generation !== null ? Number(state.alerts) : null;
      return { total, counted: null, source: null };
    }
    const statements = new ListStatements(projectId, filter);
    const exact = state.exact === true;
    if (term === null) {
      const total = await count(manager, statements, statements.count(exact));
      return { total, counted: null, source: 'counted' };
    }
    const rewritten = Number(state.rewritten_generation ?? 0);
    const countedAt = state.counted_generation === null ? null : Number(state.counted_generation);
    const use = keptTotalUse({ generation, rewritten, counted: countedAt });
    if (use === 'kept')
      return { total: Number(state.counted_total), counted: null, source: 'kept' };
    const counted = (total: number, source: SearchTotalSource): TotalBeforePage => ({
      total,
      counted:
        generation === null
          ? null
          : { term, generation, rewritten, total, alerts: Number(state.alerts) },
      source,
    });
    const texts =
      generation === null ? null : this.searchTexts.usable(projectId, generation, rewritten);
    if (
      texts !== null &&
      countsInHeldTexts({
        use,
        textsGeneration: texts.generation,
        textsAlerts: texts.alerts,
        countedAt,
        addedSinceCounted: Number(state.alerts) - Number(state.counted_alerts ?? 0),
      })
    ) {
      // Counted before any await: a refresh may replace the texts meanwhile.
      const held = texts.count(state.lowered_term!);
      const change =
        texts.generation < generation!
          ? await count(manager, statements, statements.countChangeSince(texts.generation))
          : 0;
      return counted(held + change, 'memory');
    }
    if (use === 'forward') {
      const change = await count(manager, statements, statements.countChangeSince(countedAt!));
      return counted(Number(state.counted_total) + change, 'forward');
    }
    return counted(await count(manager, statements, statements.count(exact)), 'counted');
  }

  /**
   * Keeps a counted total unless a later one is kept already, and drops the project's totals
   * that a rewrite made useless.
   */
  private async keep(projectId: string, counted: CountedTotal): Promise<void> {
    await this.dataSource.query(
      `WITH useless AS (
         DELETE FROM alert_search_total
          WHERE project_id = $1 AND generation < $4 AND term <> lower($2)
       )
       INSERT INTO alert_search_total AS c (project_id, term, generation, total, alerts)
       VALUES ($1, lower($2), $3, $5, $6)
       ON CONFLICT (project_id, term) DO UPDATE
         SET generation = EXCLUDED.generation, total = EXCLUDED.total, alerts = EXCLUDED.alerts
         WHERE c.generation < EXCLUDED.generation`,
      [
        projectId,
        counted.term,
        counted.generation,
        counted.rewritten,
        counted.total,
        counted.alerts,
      ],
    );
  }

  /** The views of those alerts of the project, in the order of `ids`; others are absent. */
  async findViews(
    projectId: string,
    ids: readonly string[],
    manager?: EntityManager,
  ): Promise<Alert[]> {
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

  async findView(projectId: string, id: string, manager?: EntityManager): Promise<Alert | null> {
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
