import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/** A row of rgw_user: who the user is on our side. Never its secret key. */
export interface RgwUserRow {
  id: string;
  organization_id: string;
  project_id: string;
  name: string;
  uid: string;
  access_key: string;
  created_at: Date;
}

export type NewRgwUserRow = Omit<RgwUserRow, 'id'>;

/** The rgw_user table. */
@Injectable()
export class RgwUsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The project's users, oldest first. */
  listForProject(projectId: string): Promise<RgwUserRow[]> {
    return this.dataSource.query(
      `SELECT * FROM rgw_user WHERE project_id = $1 ORDER BY created_at, name`,
      [projectId],
    );
  }

  /** The user, when it belongs to that project (else null: not visible from there). */
  async findInProject(
    projectId: string,
    id: string,
    manager?: EntityManager,
    lock = false,
  ): Promise<RgwUserRow | null> {
    const rows: RgwUserRow[] = await (manager ?? this.dataSource).query(
      `SELECT * FROM rgw_user WHERE id = $1 AND project_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [id, projectId],
    );
    return rows[0] ?? null;
  }

  async nameTaken(organizationId: string, name: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM rgw_user WHERE organization_id = $1 AND name = $2`,
      [organizationId, name],
    );
    return rows.length > 0;
  }

  async insert(row: NewRgwUserRow): Promise<RgwUserRow> {
    const rows: RgwUserRow[] = await this.dataSource.query(
      `INSERT INTO rgw_user (organization_id, project_id, name, uid, access_key, created_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING *`,
      [row.organization_id, row.project_id, row.name, row.uid, row.access_key, row.created_at],
    );
    return rows[0];
  }

  async setAccessKey(id: string, accessKey: string, manager: EntityManager): Promise<void> {
    await manager.query(`UPDATE rgw_user SET access_key = $2 WHERE id = $1`, [id, accessKey]);
  }

  async delete(id: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM rgw_user WHERE id = $1`, [id]);
  }
}
