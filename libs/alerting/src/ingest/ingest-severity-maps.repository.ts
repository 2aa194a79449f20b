import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Severity } from '../severity.js';
import type { SeverityMapping } from './severity-mapping.js';

/** The severity mappings of ingest tokens (`alert_ingest_severity_map`). */
@Injectable()
export class IngestSeverityMapsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Stores a new token's mapping, in the transaction that mints the token. */
  async insert(
    manager: EntityManager,
    tokenId: string,
    projectId: string,
    mapping: SeverityMapping,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO alert_ingest_severity_map (token_id, project_id, severity_map, default_severity)
       VALUES ($1, $2, $3::jsonb, $4)`,
      [tokenId, projectId, JSON.stringify(mapping.map), mapping.defaultSeverity],
    );
  }

  /** The mapping of a token; null when it was minted without one. */
  async find(tokenId: string): Promise<SeverityMapping | null> {
    const rows = await this.dataSource.query<
      Array<{ severity_map: Record<string, Severity>; default_severity: Severity | null }>
    >(`SELECT severity_map, default_severity FROM alert_ingest_severity_map WHERE token_id = $1`, [
      tokenId,
    ]);
    const row = rows[0];
    return row ? { map: row.severity_map, defaultSeverity: row.default_severity } : null;
  }
}
