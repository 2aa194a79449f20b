import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A changed search text no longer invalidates every kept search total and the search texts
 * the API holds. `alert_search_replaced` logs each replaced text with the generation that
 * replaced it and the generation it was written at, so whoever counted the matches as of a
 * generation B brings the count to a later snapshot exactly: plus the matches among search
 * rows written after B, minus the matches among texts replaced after B that were written at or
 * before B (a text both written and replaced after B was never counted).
 *
 * `rewritten_generation` keeps its meaning, "counts as of an earlier generation cannot be
 * brought forward", and now moves only when alerts go or move to another project, and when
 * the log is trimmed: every 256th generation that replaces a text drops the project's log
 * entries more than 65,536 generations old and moves `rewritten_generation` up to where they
 * end. A removal drops the project's entries it made useless.
 *
 * A kept total also keeps the project's number of alerts when it was counted, so the list can
 * tell how many alerts bringing it forward would read.
 */
export class AlertSearchReplaced1764000000014 implements MigrationInterface {
  name = 'AlertSearchReplaced1764000000014';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE alert_search_replaced (
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        -- The generation that replaced the text.
        generation bigint NOT NULL,
        -- The generation the replaced text was written at.
        written_generation bigint NOT NULL,
        search_text text NOT NULL
      );
      CREATE INDEX alert_search_replaced_generation_idx
        ON alert_search_replaced (project_id, generation);
      ALTER TABLE alert_search_total ADD COLUMN alerts bigint NOT NULL DEFAULT 0;

      CREATE OR REPLACE FUNCTION alert_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        moved boolean := NEW.project_id <> OLD.project_id;
        g bigint;
      BEGIN
        IF moved THEN
          UPDATE alert_search_state
             SET generation = generation + 1, rewritten_generation = generation + 1,
                 alerts = alerts - 1
           WHERE project_id = OLD.project_id;
          INSERT INTO alert_search_state AS s (project_id, generation, rewritten_generation, alerts)
          VALUES (NEW.project_id, 1, 1, 1)
          ON CONFLICT (project_id) DO UPDATE
            SET generation = s.generation + 1, rewritten_generation = s.generation + 1,
                alerts = s.alerts + 1
          RETURNING s.generation INTO g;
        ELSE
          INSERT INTO alert_search_state AS s (project_id, generation, alerts)
          VALUES (NEW.project_id, 1, 1)
          ON CONFLICT (project_id) DO UPDATE SET generation = s.generation + 1
          RETURNING s.generation INTO g;
          INSERT INTO alert_search_replaced (project_id, generation, written_generation, search_text)
          SELECT NEW.project_id, g, generation, search_text
            FROM alert_search WHERE alert_id = NEW.id;
          IF g % 256 = 0 AND g > 65536 THEN
            UPDATE alert_search_state
               SET rewritten_generation = greatest(rewritten_generation, g - 65536)
             WHERE project_id = NEW.project_id;
            DELETE FROM alert_search_replaced
             WHERE project_id = NEW.project_id AND generation <= g - 65536;
          END IF;
        END IF;
        UPDATE alert_search
           SET project_id = NEW.project_id, search_text = NEW.search_text, generation = g
         WHERE alert_id = NEW.id;
        RETURN NULL;
      END
      $$;

      CREATE OR REPLACE FUNCTION alert_search_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        WITH bumped AS (
          UPDATE alert_search_state AS s
             SET generation = s.generation + 1, rewritten_generation = s.generation + 1,
                 alerts = s.alerts - d.alerts
            FROM (SELECT project_id, count(*) AS alerts FROM deleted GROUP BY project_id) AS d
           WHERE s.project_id = d.project_id
          RETURNING s.project_id, s.rewritten_generation
        )
        DELETE FROM alert_search_replaced r USING bumped b
         WHERE r.project_id = b.project_id AND r.generation <= b.rewritten_generation;
        RETURN NULL;
      END
      $$;
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE OR REPLACE FUNCTION alert_search_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE alert_search_state AS s
           SET generation = s.generation + 1, rewritten_generation = s.generation + 1,
               alerts = s.alerts - d.alerts
          FROM (SELECT project_id, count(*) AS alerts FROM deleted GROUP BY project_id) AS d
         WHERE s.project_id = d.project_id;
        RETURN NULL;
      END
      $$;

      CREATE OR REPLACE FUNCTION alert_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        moved boolean := NEW.project_id <> OLD.project_id;
        g bigint;
      BEGIN
        IF moved THEN
          UPDATE alert_search_state
             SET generation = generation + 1, rewritten_generation = generation + 1,
                 alerts = alerts - 1
           WHERE project_id = OLD.project_id;
        END IF;
        INSERT INTO alert_search_state AS s (project_id, generation, rewritten_generation, alerts)
        VALUES (NEW.project_id, 1, 1, 1)
        ON CONFLICT (project_id) DO UPDATE
          SET generation = s.generation + 1, rewritten_generation = s.generation + 1,
              alerts = s.alerts + CASE WHEN moved THEN 1 ELSE 0 END
        RETURNING s.generation INTO g;
        UPDATE alert_search
           SET project_id = NEW.project_id, search_text = NEW.search_text, generation = g
         WHERE alert_id = NEW.id;
        RETURN NULL;
      END
      $$;

      -- Texts replaced meanwhile leave the kept totals and held texts unable to tell.
      UPDATE alert_search_state s SET rewritten_generation = s.generation
       WHERE EXISTS (SELECT 1 FROM alert_search_replaced r WHERE r.project_id = s.project_id);
      DROP TABLE alert_search_replaced;
      ALTER TABLE alert_search_total DROP COLUMN alerts;
    `);
  }
}
