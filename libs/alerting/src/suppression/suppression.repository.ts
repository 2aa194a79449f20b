import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Matcher } from '../matchers/matchers.js';
import type { ActiveWindow } from './suppression.js';

export interface SilenceRow {
  id: string;
  project_id: string;
  alert_id: string;
  starts_at: Date;
  ends_at: Date;
  comment: string;
  created_by: string | null;
  created_by_name: string | null;
  created_at: Date;
}

export interface MaintenanceWindowRow {
  id: string;
  project_id: string;
  name: string;
  starts_at: Date;
  ends_at: Date;
  matchers: Matcher[];
  created_by: string | null;
  created_by_name: string | null;
  created_at: Date;
  updated_at: Date;
}

const SILENCE_SELECT = `
  SELECT s.id, s.project_id, s.alert_id, s.starts_at, s.ends_at, s.comment, s.created_by,
         acc.name AS created_by_name, s.created_at
    FROM alert_silence s LEFT JOIN account acc ON acc.id = s.created_by`;

const WINDOW_SELECT = `
  SELECT w.id, w.project_id, w.name, w.starts_at, w.ends_at, w.matchers, w.created_by,
         acc.name AS created_by_name, w.created_at, w.updated_at
    FROM maintenance_window w LEFT JOIN account acc ON acc.id = w.created_by`;

/** Silences of alerts and maintenance windows of projects. */
@Injectable()
export class SuppressionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** alert id → the silence that lasts longest among those active at `at`, one statement. */
  async activeSilences(
    projectId: string,
    alertIds: readonly string[],
    at: Date,
  ): Promise<Map<string, string>> {
    const rows: Array<{ id: string; alert_id: string }> = await this.dataSource.query(
      `SELECT DISTINCT ON (alert_id) id, alert_id FROM alert_silence
        WHERE project_id = $1 AND alert_id = ANY($2::uuid[]) AND starts_at <= $3 AND ends_at > $3
        ORDER BY alert_id, ends_at DESC, id`,
      [projectId, alertIds, at],
    );
    return new Map(rows.map((r) => [r.alert_id, r.id]));
  }

  /** The project's windows active at `at`, the one lasting longest first. */
  activeWindows(projectId: string, at: Date): Promise<ActiveWindow[]> {
    return this.dataSource.query(
      `SELECT id, matchers FROM maintenance_window
        WHERE project_id = $1 AND starts_at <= $2 AND ends_at > $2
        ORDER BY ends_at DESC, id`,
      [projectId, at],
    );
  }

  async createSilence(silence: {
    projectId: string;
    alertId: string;
    endsAt: Date;
    comment: string;
    createdBy: string;
    at: Date;
  }): Promise<SilenceRow> {
    const [{ id }]: Array<{ id: string }> = await this.dataSource.query(
      `INSERT INTO alert_silence (project_id, alert_id, starts_at, ends_at, comment, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $3) RETURNING id`,
      [
        silence.projectId,
        silence.alertId,
        silence.at,
        silence.endsAt,
        silence.comment,
        silence.createdBy,
      ],
    );
    return (await this.findSilence(silence.projectId, silence.alertId, id))!;
  }

  listSilences(projectId: string, alertId: string): Promise<SilenceRow[]> {
    return this.dataSource.query(
      `${SILENCE_SELECT} WHERE s.project_id = $1 AND s.alert_id = $2
        ORDER BY s.created_at DESC, s.id DESC`,
      [projectId, alertId],
    );
  }

  async findSilence(projectId: string, alertId: string, id: string): Promise<SilenceRow | null> {
    const rows: SilenceRow[] = await this.dataSource.query(
      `${SILENCE_SELECT} WHERE s.id = $1 AND s.project_id = $2 AND s.alert_id = $3`,
      [id, projectId, alertId],
    );
    return rows[0] ?? null;
  }

  /** Ends the silence at `at` unless it already ended; false when it is not the alert's. */
  async expireSilence(projectId: string, alertId: string, id: string, at: Date): Promise<boolean> {
    // pg answers an UPDATE or DELETE as [rows, affected count].
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      `UPDATE alert_silence SET ends_at = greatest(starts_at, least(ends_at, $4))
        WHERE id = $1 AND project_id = $2 AND alert_id = $3`,
      [id, projectId, alertId, at],
    );
    return affected > 0;
  }

  async createWindow(window: {
    projectId: string;
    name: string;
    startsAt: Date;
    endsAt: Date;
    matchers: Matcher[];
    createdBy: string;
    at: Date;
  }): Promise<MaintenanceWindowRow> {
    const [{ id }]: Array<{ id: string }> = await this.dataSource.query(
      `INSERT INTO maintenance_window (project_id, name, starts_at, ends_at, matchers, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $7) RETURNING id`,
      [
        window.projectId,
        window.name,
        window.startsAt,
        window.endsAt,
        JSON.stringify(window.matchers),
        window.createdBy,
        window.at,
      ],
    );
    return (await this.findWindow(window.projectId, id))!;
  }

  listWindows(projectId: string): Promise<MaintenanceWindowRow[]> {
    return this.dataSource.query(
      `${WINDOW_SELECT} WHERE w.project_id = $1 ORDER BY w.starts_at DESC, w.id DESC`,
      [projectId],
    );
  }

  async findWindow(projectId: string, id: string): Promise<MaintenanceWindowRow | null> {
    const rows: MaintenanceWindowRow[] = await this.dataSource.query(
      `${WINDOW_SELECT} WHERE w.id = $1 AND w.project_id = $2`,
      [id, projectId],
    );
    return rows[0] ?? null;
  }

  /** Writes the whole window (the caller merged the change); false when it is not there. */
  async updateWindow(window: {
    projectId: string;
    id: string;
    name: string;
    startsAt: Date;
    endsAt: Date;
    matchers: Matcher[];
    at: Date;
  }): Promise<boolean> {
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      `UPDATE maintenance_window
          SET name = $3, starts_at = $4, ends_at = $5, matchers = $6::jsonb, updated_at = $7
        WHERE id = $1 AND project_id = $2`,
      [
        window.id,
        window.projectId,
        window.name,
        window.startsAt,
        window.endsAt,
        JSON.stringify(window.matchers),
        window.at,
      ],
    );
    return affected > 0;
  }

  async deleteWindow(projectId: string, id: string): Promise<boolean> {
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      'DELETE FROM maintenance_window WHERE id = $1 AND project_id = $2',
      [id, projectId],
    );
    return affected > 0;
  }
}
