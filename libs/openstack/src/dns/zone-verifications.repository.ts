import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface ZoneVerificationRow {
  zone_id: string;
  project_id: string;
  zone_name: string;
  verified_at: Date;
}

/** The dns_zone_verification table: which zones of a project proved control of their name. */
@Injectable()
export class ZoneVerificationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The verifications of those zones of the project, by zone id. */
  async find(projectId: string, zoneIds: string[]): Promise<Map<string, ZoneVerificationRow>> {
    if (zoneIds.length === 0) return new Map();
    const rows: ZoneVerificationRow[] = await this.dataSource.query(
      `SELECT * FROM dns_zone_verification WHERE project_id = $1 AND zone_id = ANY($2::text[])`,
      [projectId, zoneIds],
    );
    return new Map(rows.map((row) => [row.zone_id, row]));
  }

  /**
   * Records a verification unless the zone has one already (two verifications at once both
   * succeed; the first one's time stands). Answers the stored row and whether it is new.
   */
  async insert(row: ZoneVerificationRow): Promise<{ row: ZoneVerificationRow; created: boolean }> {
    const inserted: ZoneVerificationRow[] = await this.dataSource.query(
      `INSERT INTO dns_zone_verification (zone_id, project_id, zone_name, verified_at)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (zone_id) DO NOTHING
       RETURNING *`,
      [row.zone_id, row.project_id, row.zone_name, row.verified_at],
    );
    if (inserted[0]) return { row: inserted[0], created: true };
    const stored = await this.find(row.project_id, [row.zone_id]);
    return { row: stored.get(row.zone_id) ?? row, created: false };
  }

  async delete(projectId: string, zoneId: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM dns_zone_verification WHERE project_id = $1 AND zone_id = $2`,
      [projectId, zoneId],
    );
  }
}
