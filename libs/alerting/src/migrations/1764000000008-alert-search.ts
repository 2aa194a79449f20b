import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The search index leaves the alert row, and list totals stop costing a count per request.
 *
 * Ingest rewrites an alert on every redelivery, and `last_received_at` is indexed, so those
 * updates are never HOT: every index of the row takes a new entry each time, and the trigram
 * index of `search_text` took about a hundred for text that had not changed. `alert_search`
 * holds a copy of `alert.search_text` apart from the row, written by triggers on `alert` when
 * an alert appears and when its text or project changes, never otherwise, whoever writes the
 * alert (triggers rather than the ingest statement, so that no writer of alerts can leave the
 * search behind). The alert keeps `search_text` in its list index: a broad search walks that
 * index in order and stops at the end of the page without leaving it.
 *
 * `alert_search_keys_idx` is a GIN index of keys that each carry the project (the first 8 hex
 * digits of its md5) and one or two characters of the text: every character and every pair of
 * adjacent characters. A one- or two-character query is one key and the index answers it
 * exactly; a longer one needs pairs covering it and is rechecked with LIKE. The project in the
 * key keeps another project's alerts out of the posting lists, so a common character costs the
 * matches of this project, not of all. U+001E separates keys while they are built, so in the
 * text it stands in as U+001F; a query containing either is rechecked.
 *
 * `alert_search_state` numbers the changes of each project's searchable set: an insert, a text
 * change, a move or a delete bumps `generation` under the row's lock, so a project's generations
 * commit in order and a snapshot that sees generation G sees exactly the `alert_search` rows of
 * generations up to G. `rewritten_generation` is the last generation that changed or removed
 * text already there; `alerts` is the number of the project's alerts. The list keeps exact
 * search totals in `alert_search_total` (unlogged: a cache, emptied by a crash) with the
 * generation they were counted at: while no rewrite happened since, the total is that count
 * plus the matches among rows of later generations.
 */
export class AlertSearch1764000000008 implements MigrationInterface {
  name = 'AlertSearch1764000000008';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      -- Costly per row: the planner must reach it through the index, never as a filter.
      CREATE FUNCTION alert_search_keys(project uuid, search_text text)
        RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT COST 1000 AS $$
      DECLARE
        p text := left(md5(project::text), 8);
        t text := replace(search_text, chr(30), chr(31));
        pair text := p || '\\1' || chr(30);
      BEGIN
        -- Characters, pairs at even offsets, pairs at odd offsets. A character left over at
        -- the end of a pass stays a key without the project, which no query asks for.
        RETURN array_remove(string_to_array(
          p || array_to_string(string_to_array(t, NULL), chr(30) || p) || chr(30) ||
          regexp_replace(t, '(..)', pair, 'g') || chr(30) ||
          regexp_replace(substr(t, 2), '(..)', pair, 'g'),
          chr(30)), '');
      END
      $$;

      -- Keys every text containing q holds: q itself up to two characters, else pairs that
      -- cover it (every other one and the last; the overlapping ones would narrow the matches
      -- little and cost a posting list each).
      CREATE FUNCTION alert_search_query_keys(project uuid, q text)
        RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
        SELECT CASE WHEN length(t) <= 2 THEN ARRAY[p || t]
                    ELSE ARRAY(SELECT p || substr(t, i, 2)
                                 FROM generate_series(1, length(t) - 1, 2) AS i
                                UNION
                               SELECT p || right(t, 2)) END
          FROM (SELECT left(md5(project::text), 8) AS p,
                       replace(lower(q), chr(30), chr(31)) AS t) AS s
      $$;

      CREATE TABLE alert_search (
        alert_id uuid PRIMARY KEY REFERENCES alert (id) ON DELETE CASCADE,
        project_id uuid NOT NULL,
        search_text text NOT NULL,
        generation bigint NOT NULL
      );

      CREATE TABLE alert_search_state (
        project_id uuid PRIMARY KEY REFERENCES project (id) ON DELETE CASCADE,
        generation bigint NOT NULL,
        rewritten_generation bigint NOT NULL DEFAULT 0,
        alerts bigint NOT NULL
      );

      CREATE UNLOGGED TABLE alert_search_total (
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        -- lower(q)
        term text NOT NULL,
        generation bigint NOT NULL,
        total bigint NOT NULL,
        PRIMARY KEY (project_id, term)
      );

      INSERT INTO alert_search_state (project_id, generation, alerts)
      SELECT project_id, 1, count(*) FROM alert GROUP BY project_id;
      INSERT INTO alert_search (alert_id, project_id, search_text, generation)
      SELECT id, project_id, search_text, 1 FROM alert;

      CREATE INDEX alert_search_keys_idx ON alert_search
        USING gin ((alert_search_keys(project_id, search_text) COLLATE "C"));
      CREATE INDEX alert_search_generation_idx ON alert_search (project_id, generation);

      -- New alerts, whatever the statement: one generation per project and statement.
      CREATE FUNCTION alert_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        WITH added AS (
          SELECT project_id, count(*) AS alerts FROM inserted GROUP BY project_id
        ), bumped AS (
          INSERT INTO alert_search_state AS s (project_id, generation, alerts)
          SELECT project_id, 1, alerts FROM added ORDER BY project_id
          ON CONFLICT (project_id) DO UPDATE
            SET generation = s.generation + 1, alerts = s.alerts + EXCLUDED.alerts
          RETURNING s.project_id, s.generation
        )
        INSERT INTO alert_search (alert_id, project_id, search_text, generation)
        SELECT i.id, i.project_id, i.search_text, b.generation
          FROM inserted i JOIN bumped b ON b.project_id = i.project_id;
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER alert_search_inserted AFTER INSERT ON alert
        REFERENCING NEW TABLE AS inserted
        FOR EACH STATEMENT EXECUTE FUNCTION alert_search_inserted();

      -- A changed text or project: rare, so one row at a time. The old project loses the alert.
      CREATE FUNCTION alert_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
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
      -- search_text is generated from these columns.
      CREATE TRIGGER alert_search_updated
        AFTER UPDATE OF project_id, fingerprint, labels, annotations ON alert
        FOR EACH ROW
        WHEN (OLD.project_id IS DISTINCT FROM NEW.project_id
              OR OLD.search_text IS DISTINCT FROM NEW.search_text)
        EXECUTE FUNCTION alert_search_updated();

      -- Search rows go with their alert (foreign key); the projects' counts follow here.
      CREATE FUNCTION alert_search_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE alert_search_state AS s
           SET generation = s.generation + 1, rewritten_generation = s.generation + 1,
               alerts = s.alerts - d.alerts
          FROM (SELECT project_id, count(*) AS alerts FROM deleted GROUP BY project_id) AS d
         WHERE s.project_id = d.project_id;
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER alert_search_deleted AFTER DELETE ON alert
        REFERENCING OLD TABLE AS deleted
        FOR EACH STATEMENT EXECUTE FUNCTION alert_search_deleted();

      -- Generations keep counting up, so no cached total outlives the rows it counted.
      CREATE FUNCTION alert_search_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE alert_search_state
           SET generation = generation + 1, rewritten_generation = generation + 1, alerts = 0;
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER alert_search_truncated AFTER TRUNCATE ON alert
        FOR EACH STATEMENT EXECUTE FUNCTION alert_search_truncated();

      DROP INDEX alert_search_trgm_idx;
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TRIGGER alert_search_truncated ON alert;
      DROP TRIGGER alert_search_deleted ON alert;
      DROP TRIGGER alert_search_updated ON alert;
      DROP TRIGGER alert_search_inserted ON alert;
      DROP FUNCTION alert_search_truncated();
      DROP FUNCTION alert_search_deleted();
      DROP FUNCTION alert_search_updated();
      DROP FUNCTION alert_search_inserted();
      DROP TABLE alert_search_total;
      DROP TABLE alert_search;
      DROP TABLE alert_search_state;
      DROP FUNCTION alert_search_query_keys(uuid, text);
      DROP FUNCTION alert_search_keys(uuid, text);
      CREATE INDEX alert_search_trgm_idx ON alert USING gin (project_id, search_text gin_trgm_ops);
    `);
  }
}
