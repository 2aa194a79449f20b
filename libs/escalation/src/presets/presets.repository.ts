import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export interface ConfigurationCounts {
  routes: number;
  escalation_chains: number;
}

/**
 * What seeding reads besides chains and steps (written through ChainsRepository; routes through
 * alerting's AlertRoutesRepository).
 */
@Injectable()
export class PresetsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Serializes seeding per project: a second request waits here until the first commits, and
   * its next statement then sees what the first wrote. NO KEY UPDATE leaves foreign-key checks
   * against the project (alerts arriving meanwhile) unblocked.
   */
  async lockProject(manager: EntityManager, projectId: string): Promise<void> {
    await manager.query('SELECT 1 FROM project WHERE id = $1 FOR NO KEY UPDATE', [projectId]);
  }

  async counts(manager: EntityManager, projectId: string): Promise<ConfigurationCounts> {
    const rows: ConfigurationCounts[] = await manager.query(
      `SELECT (SELECT count(*) FROM alert_route WHERE project_id = $1)::int AS routes,
              (SELECT count(*) FROM escalation_chain WHERE project_id = $1)::int AS escalation_chains`,
      [projectId],
    );
    return rows[0];
  }
}
