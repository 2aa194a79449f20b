import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The severity mapping of an ingest token (`severity_map`, `default_severity` of the mint
 * body), one row per token that asked for one; tokens without a row ingest with the spec's
 * exact severities. Keys are stored lower-cased, as they match case-insensitively. The row
 * goes with its token (and the token with its project).
 */
export class IngestSeverityMaps1764000000027 implements MigrationInterface {
  name = 'IngestSeverityMaps1764000000027';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE alert_ingest_severity_map (
        token_id uuid PRIMARY KEY REFERENCES api_token (id) ON DELETE CASCADE,
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        severity_map jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(severity_map) = 'object'),
        default_severity text CHECK (default_severity IN ('critical', 'high', 'warning', 'info'))
      );
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE alert_ingest_severity_map');
  }
}
