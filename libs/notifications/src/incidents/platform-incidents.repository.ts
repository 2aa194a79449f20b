import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Severity } from '../entities.js';

export interface PlatformIncident {
  id: string;
  title: string;
  body: string;
  severity: Severity;
  /** null: every account is concerned. */
  affectedFeatures: string[] | null;
  openedAt: Date;
  resolvedAt: Date | null;
  updatedAt: Date;
  createdBy: string | null;
}

const COLUMNS = `id, title, body, severity, affected_features AS "affectedFeatures",
  opened_at AS "openedAt", resolved_at AS "resolvedAt", updated_at AS "updatedAt",
  created_by AS "createdBy"`;

@Injectable()
export class PlatformIncidentsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async create(
    manager: EntityManager,
    fields: Pick<
      PlatformIncident,
      'title' | 'body' | 'severity' | 'affectedFeatures' | 'createdBy'
    >,
    now: Date,
  ): Promise<PlatformIncident> {
    const [row]: PlatformIncident[] = await manager.query(
      `INSERT INTO platform_incident (title, body, severity, affected_features, opened_at, updated_at, created_by)
       VALUES ($1, $2, $3, $4, $5, $5, $6) RETURNING ${COLUMNS}`,
      [fields.title, fields.body, fields.severity, fields.affectedFeatures, now, fields.createdBy],
    );
    return row;
  }

  /** Newest first. */
  list(): Promise<PlatformIncident[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM platform_incident ORDER BY opened_at DESC, id DESC`,
    );
  }

  async find(id: string, manager?: EntityManager): Promise<PlatformIncident | null> {
    const [row]: PlatformIncident[] = await (manager ?? this.dataSource).query(
      `SELECT ${COLUMNS} FROM platform_incident WHERE id = $1 ${manager ? 'FOR UPDATE' : ''}`,
      [id],
    );
    return row ?? null;
  }

  /** Changes title and body, and resolves it when `resolve` (once: resolved_at stays). */
  async update(
    manager: EntityManager,
    id: string,
    changes: { title?: string; body?: string; resolve: boolean },
    now: Date,
  ): Promise<PlatformIncident> {
    const [rows]: [PlatformIncident[], number] = await manager.query(
      `UPDATE platform_incident
          SET title = COALESCE($2, title), body = COALESCE($3, body),
              resolved_at = CASE WHEN $4 THEN COALESCE(resolved_at, $5) ELSE resolved_at END,
              updated_at = $5
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, changes.title ?? null, changes.body ?? null, changes.resolve, now],
    );
    return rows[0];
  }

  /** The feature keys of the capability catalog. */
  async featureKeys(): Promise<string[]> {
    const rows: Array<{ key: string }> = await this.dataSource.query(
      `SELECT key FROM feature ORDER BY position`,
    );
    return rows.map((r) => r.key);
  }
}
