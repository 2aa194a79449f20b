import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/** The alert events an endpoint may subscribe to. Values are stored: never rename one. */
export const ENDPOINT_EVENTS = ['alert_firing', 'alert_resolved'] as const;
export type EndpointEvent = (typeof ENDPOINT_EVENTS)[number];

export interface EndpointRow {
  id: string;
  project_id: string;
  name: string;
  url: string;
  enabled: boolean;
  events: EndpointEvent[];
  created_at: Date;
  updated_at: Date;
}

export interface EndpointChanges {
  name?: string;
  url?: string;
  enabled?: boolean;
  events?: EndpointEvent[];
}

const COLUMNS = 'id, project_id, name, url, enabled, events, created_at, updated_at';

/** Notification endpoints of a project; the signing secret never leaves through a read. */
@Injectable()
export class EndpointsRepository {
  constructor(private readonly dataSource: DataSource) {}

  list(projectId: string): Promise<EndpointRow[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM notification_endpoint WHERE project_id = $1 ORDER BY created_at, id`,
      [projectId],
    );
  }

  async find(projectId: string, id: string): Promise<EndpointRow | null> {
    const rows: EndpointRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM notification_endpoint WHERE id = $1 AND project_id = $2`,
      [id, projectId],
    );
    return rows[0] ?? null;
  }

  /**
   * The ids that are endpoints of the project, with whether they are enabled; with `manager`,
   * on that transaction's connection.
   */
  async findInProject(
    projectId: string,
    ids: readonly string[],
    manager?: EntityManager,
  ): Promise<Array<{ id: string; enabled: boolean }>> {
    if (ids.length === 0) return [];
    return (manager ?? this.dataSource).query(
      `SELECT id, enabled FROM notification_endpoint
        WHERE project_id = $1 AND id = ANY ($2::uuid[])
        ORDER BY id`,
      [projectId, ids.filter(isUuid)],
    );
  }

  async create(endpoint: {
    projectId: string;
    name: string;
    url: string;
    enabled: boolean;
    events: EndpointEvent[];
    secret: string;
    at: Date;
  }): Promise<EndpointRow> {
    const rows: EndpointRow[] = await this.dataSource.query(
      `INSERT INTO notification_endpoint (project_id, name, url, enabled, events, secret, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $7)
       RETURNING ${COLUMNS}`,
      [
        endpoint.projectId,
        endpoint.name,
        endpoint.url,
        endpoint.enabled,
        endpoint.events,
        endpoint.secret,
        endpoint.at,
      ],
    );
    return rows[0];
  }

  /** Applies the given fields only; null when the endpoint is not in the project. */
  async update(
    projectId: string,
    id: string,
    changes: EndpointChanges,
    at: Date,
  ): Promise<EndpointRow | null> {
    const [rows]: [EndpointRow[], number] = await this.dataSource.query(
      `UPDATE notification_endpoint
          SET name = COALESCE($3, name),
              url = COALESCE($4, url),
              enabled = COALESCE($5, enabled),
              events = COALESCE($6::text[], events),
              updated_at = $7
        WHERE id = $1 AND project_id = $2
        RETURNING ${COLUMNS}`,
      [
        id,
        projectId,
        changes.name ?? null,
        changes.url ?? null,
        changes.enabled ?? null,
        changes.events ?? null,
        at,
      ],
    );
    return rows[0] ?? null;
  }

  /**
   * Replaces the signing secret; the old one keeps signing (as a second signature) until
   * `previousUntil`. Null when the endpoint is not in the project.
   */
  async rotateSecret(
    projectId: string,
    id: string,
    secret: string,
    at: Date,
    previousUntil: Date,
  ): Promise<EndpointRow | null> {
    const [rows]: [EndpointRow[], number] = await this.dataSource.query(
      `UPDATE notification_endpoint
          SET previous_secret = secret, previous_secret_expires_at = $4, secret = $3,
              updated_at = $5
        WHERE id = $1 AND project_id = $2
        RETURNING ${COLUMNS}`,
      [id, projectId, secret, previousUntil, at],
    );
    return rows[0] ?? null;
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    const [, count]: [unknown[], number] = await this.dataSource.query(
      'DELETE FROM notification_endpoint WHERE id = $1 AND project_id = $2',
      [id, projectId],
    );
    return count > 0;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids that are not UUIDs name no endpoint; dropping them keeps the query from failing. */
function isUuid(id: string): boolean {
  return UUID.test(id);
}
