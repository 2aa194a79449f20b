import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-day rollups behind alert insights, kept by triggers, so a window of up to 90 days reads
 * a few thousand rollup rows and the raw rows of its partial first day only.
 *
 * Days are UTC calendar days (`insights_day`). Each rollup row counts what its raw rows say:
 * - `insights_alert_day`: alerts by the day of `starts_at` and severity; `acked` those with an
 *   acknowledgement.
 * - `insights_ack_sample`: one row per acknowledged alert, its MTTA sample (seconds from
 *   `starts_at` to the earliest acknowledgement, never below 0) and the sample's histogram
 *   bucket; `insights_ack_day` counts samples by the alert's day and bucket. Buckets are
 *   ordered like the samples (16 per doubling above 16 s, one per second below), so the k-th
 *   sample of a window lies in the bucket where the window's running count passes k, and is
 *   found there by walking `insights_ack_sample_rank_idx` among that bucket's samples only.
 * - `insights_event_day`: fired and refired timeline events by the day they were recorded and
 *   the alert's current alertname (a rename moves the alert's counted events).
 * - `insights_escalation_day`: escalation instances by the day they opened; those exhausted
 *   (state exhausted, or `exhausted_at` set) and those repeated (`repeat_count` > 0).
 * - `insights_ledger_day` (per account) and `insights_ack_channel_day` (acknowledgements per
 *   channel, an SMS reply counting as phone): escalation ledger rows by the day written, in
 *   shards per writing backend (so concurrent page deliveries to one account do not queue).
 *
 * What the triggers cost the hot paths: an ingest redelivery changes no rollup (row triggers
 * filter on the columns that matter; the statement triggers of alert and event inserts find no
 * new alert and no fired event and return). An escalation step that moves an instance on
 * without exhausting it or starting a repeat runs no trigger function (the row trigger's WHEN
 * filters it) and its update stays HOT; its statement runs one drain of an empty table.
 *
 * Concurrency. Alert-side rollups (alerts, acknowledgements, samples, events) of a project are
 * written under a transaction-scoped advisory lock of the project (`insights_lock`), taken by
 * each trigger before it reads the rows it counts: writers of one project's alert rollups take
 * turns (ingest statements that add alerts already do, on the search state row), read what
 * committed before them (READ COMMITTED), and cannot deadlock over rollup rows. Writers take
 * alert row locks before that lock, never after (ingest locks its alerts in its statement; the
 * acknowledgement paths lock the alert first). Escalation and ledger rollups are upserted by
 * one statement per trigger in key order; an instance update queues its changes in
 * `insights_escalation_change` (unlogged, drained by the statement's own trigger before it
 * ends), so a multi-row engine update also writes its rollup rows in key order. The writers
 * of those rollups (the engine's step statement, resolution, acknowledgement, page settlement,
 * opening) each write them in one statement per transaction, and none of them takes a
 * project's lock after an escalation or ledger rollup row, so the order is always: project
 * lock, alert-side rollups, ledger rollups, escalation rollups. (Projects whose hashes collide
 * share a lock: they only take turns.)
 *
 * What is not followed: timeline events deleted by the retention prune stay counted (they are
 * older than 90 days, before every window); alerts, escalation instances and ledger rows are
 * deleted only with their project, whose rollups go with it. `insights_rebuild()` recomputes
 * every rollup from the raw rows (used here to backfill, and after bulk loads that bypass
 * triggers).
 */
export class InsightsRollups1764000000011 implements MigrationInterface {
  name = 'InsightsRollups1764000000011';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE FUNCTION insights_day(at timestamptz) RETURNS date
        LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$ SELECT (at AT TIME ZONE 'UTC')::date $$;

      -- Monotonic in s (s >= 0); stable at powers of two whatever the rounding of ln().
      CREATE FUNCTION insights_mtta_bucket(s float8) RETURNS integer
        LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
        SELECT CASE WHEN s < 16 THEN floor(s)::integer
                    ELSE 16 * (floor(ln(s) / ln(2))::integer - 4)
                         + floor(s / power(2::float8, floor(ln(s) / ln(2)) - 4))::integer END
      $$;

      CREATE FUNCTION insights_alertname(labels jsonb) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT coalesce(nullif(labels ->> 'alertname', ''), '(unknown)')
      $$;

      CREATE FUNCTION insights_lock(project uuid) RETURNS void LANGUAGE sql AS $$
        SELECT pg_advisory_xact_lock(1764000011, hashtext(project::text))
      $$;

      CREATE TABLE insights_alert_day (
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        day date NOT NULL,
        severity text NOT NULL,
        alerts integer NOT NULL,
        acked integer NOT NULL,
        PRIMARY KEY (project_id, day, severity)
      );

      CREATE TABLE insights_ack_sample (
        alert_id uuid PRIMARY KEY REFERENCES alert (id) ON DELETE CASCADE,
        project_id uuid NOT NULL,
        -- the alert's as counted (its row in insights_alert_day and insights_ack_day)
        starts_at timestamptz NOT NULL,
        severity text NOT NULL,
        seconds float8 NOT NULL,
        bucket integer NOT NULL
      );
      CREATE INDEX insights_ack_sample_rank_idx ON insights_ack_sample (project_id, bucket, seconds)
        INCLUDE (starts_at);
      CREATE INDEX insights_ack_sample_starts_idx ON insights_ack_sample (project_id, starts_at)
        INCLUDE (bucket);

      CREATE TABLE insights_ack_day (
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        day date NOT NULL,
        bucket integer NOT NULL,
        samples integer NOT NULL,
        PRIMARY KEY (project_id, day, bucket)
      );

      CREATE TABLE insights_event_day (
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        day date NOT NULL,
        alertname text NOT NULL,
        events integer NOT NULL,
        PRIMARY KEY (project_id, day, alertname)
      );

      CREATE TABLE insights_escalation_day (
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        day date NOT NULL,
        opened integer NOT NULL,
        exhausted integer NOT NULL,
        repeated integer NOT NULL,
        PRIMARY KEY (project_id, day)
      );

      -- Changes of one statement's updated instances, until its statement trigger applies them.
      CREATE UNLOGGED TABLE insights_escalation_change (
        project_id uuid NOT NULL,
        day date NOT NULL,
        opened integer NOT NULL,
        exhausted integer NOT NULL,
        repeated integer NOT NULL
      );

      -- Ledger rows come one per delivered page: a burst of pages to one account would queue
      -- its deliveries on one rollup row until each commits. Each backend writes its own shard
      -- (its process id mod 8); readers add the shards up.
      CREATE TABLE insights_ledger_day (
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        day date NOT NULL,
        account_id uuid NOT NULL,
        shard smallint NOT NULL,
        notified integer NOT NULL,
        called integer NOT NULL,
        acked integer NOT NULL,
        PRIMARY KEY (project_id, day, account_id, shard)
      );

      CREATE TABLE insights_ack_channel_day (
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        day date NOT NULL,
        -- in_app, email or phone (SMS replies included)
        channel text NOT NULL,
        shard smallint NOT NULL,
        acks integer NOT NULL,
        PRIMARY KEY (project_id, day, channel, shard)
      );

      -- Brings the alert's acknowledgement figures in line with its rows: acked or not, and its
      -- sample. The caller holds the project's lock.
      CREATE FUNCTION insights_sync_ack(target uuid) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        a record;
        was insights_ack_sample;
        first_ack timestamptz;
        secs float8;
      BEGIN
        SELECT project_id, starts_at, severity INTO a FROM alert WHERE id = target;
        IF FOUND THEN
          SELECT min(created_at) INTO first_ack FROM alert_acknowledgement WHERE alert_id = target;
          secs := greatest(0, extract(epoch FROM first_ack - a.starts_at)::float8);
        END IF;
        SELECT * INTO was FROM insights_ack_sample WHERE alert_id = target;
        IF was.alert_id IS NULL AND first_ack IS NULL THEN RETURN; END IF;
        IF was.alert_id IS NOT NULL AND first_ack IS NOT NULL
           AND (was.project_id, was.starts_at, was.severity, was.seconds)
               = (a.project_id, a.starts_at, a.severity, secs) THEN
          RETURN;
        END IF;
        IF was.alert_id IS NOT NULL THEN
          UPDATE insights_alert_day SET acked = acked - 1
           WHERE project_id = was.project_id AND day = insights_day(was.starts_at)
             AND severity = was.severity;
          UPDATE insights_ack_day SET samples = samples - 1
           WHERE project_id = was.project_id AND day = insights_day(was.starts_at)
             AND bucket = was.bucket;
        END IF;
        IF first_ack IS NULL THEN
          DELETE FROM insights_ack_sample WHERE alert_id = target;
          RETURN;
        END IF;
        INSERT INTO insights_alert_day AS d (project_id, day, severity, alerts, acked)
        VALUES (a.project_id, insights_day(a.starts_at), a.severity, 0, 1)
        ON CONFLICT (project_id, day, severity) DO UPDATE SET acked = d.acked + 1;
        INSERT INTO insights_ack_day AS d (project_id, day, bucket, samples)
        VALUES (a.project_id, insights_day(a.starts_at), insights_mtta_bucket(secs), 1)
        ON CONFLICT (project_id, day, bucket) DO UPDATE SET samples = d.samples + 1;
        INSERT INTO insights_ack_sample AS s
          (alert_id, project_id, starts_at, severity, seconds, bucket)
        VALUES (target, a.project_id, a.starts_at, a.severity, secs, insights_mtta_bucket(secs))
        ON CONFLICT (alert_id) DO UPDATE SET
          project_id = EXCLUDED.project_id, starts_at = EXCLUDED.starts_at,
          severity = EXCLUDED.severity, seconds = EXCLUDED.seconds, bucket = EXCLUDED.bucket;
      END
      $$;

      CREATE FUNCTION insights_alerts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM inserted) THEN RETURN NULL; END IF;
        PERFORM insights_lock(project_id)
           FROM (SELECT DISTINCT project_id FROM inserted ORDER BY 1) p;
        INSERT INTO insights_alert_day AS d (project_id, day, severity, alerts, acked)
        SELECT project_id, insights_day(starts_at), severity, count(*), 0
          FROM inserted GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (project_id, day, severity) DO UPDATE SET alerts = d.alerts + EXCLUDED.alerts;
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER insights_alerts_inserted AFTER INSERT ON alert
        REFERENCING NEW TABLE AS inserted
        FOR EACH STATEMENT EXECUTE FUNCTION insights_alerts_inserted();

      -- A refiring (new starts_at), a new severity or alertname: rare next to redeliveries.
      CREATE FUNCTION insights_alert_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        old_name text := insights_alertname(OLD.labels);
        new_name text := insights_alertname(NEW.labels);
      BEGIN
        PERFORM insights_lock(p)
           FROM (SELECT DISTINCT p FROM unnest(ARRAY[OLD.project_id, NEW.project_id]) AS p
                  ORDER BY 1) ps;
        IF (OLD.project_id, insights_day(OLD.starts_at), OLD.severity)
           IS DISTINCT FROM (NEW.project_id, insights_day(NEW.starts_at), NEW.severity) THEN
          UPDATE insights_alert_day SET alerts = alerts - 1
           WHERE project_id = OLD.project_id AND day = insights_day(OLD.starts_at)
             AND severity = OLD.severity;
          INSERT INTO insights_alert_day AS d (project_id, day, severity, alerts, acked)
          VALUES (NEW.project_id, insights_day(NEW.starts_at), NEW.severity, 1, 0)
          ON CONFLICT (project_id, day, severity) DO UPDATE SET alerts = d.alerts + 1;
        END IF;
        IF (OLD.project_id, OLD.starts_at, OLD.severity)
           IS DISTINCT FROM (NEW.project_id, NEW.starts_at, NEW.severity) THEN
          PERFORM insights_sync_ack(NEW.id);
        END IF;
        IF OLD.project_id IS DISTINCT FROM NEW.project_id OR old_name <> new_name THEN
          -- The alert's events counted so far move to its new name. Events written by this
          -- very statement (same transaction and command as the alert's new row version) are
          -- not counted yet: the event trigger counts them, under the new name.
          WITH this_command AS (SELECT xmin, cmin FROM alert WHERE id = NEW.id),
          counted AS (
            SELECT e.project_id, insights_day(e.created_at) AS day, count(*)::integer AS n
              FROM alert_event e, this_command c
             WHERE e.alert_id = NEW.id AND e.kind IN ('fired', 'refired')
               AND e.project_id IN (OLD.project_id, NEW.project_id)
               AND NOT (e.xmin = c.xmin AND e.cmin = c.cmin)
             GROUP BY 1, 2
          ), moved AS (
            SELECT OLD.project_id AS project_id, day, old_name AS alertname, -n AS n
              FROM counted WHERE project_id = OLD.project_id
            UNION ALL
            SELECT NEW.project_id, day, new_name, n FROM counted WHERE project_id = NEW.project_id
          )
          INSERT INTO insights_event_day AS d (project_id, day, alertname, events)
          SELECT project_id, day, alertname, sum(n) FROM moved
           GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
          ON CONFLICT (project_id, day, alertname) DO UPDATE SET events = d.events + EXCLUDED.events;
        END IF;
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER insights_alert_changed
        AFTER UPDATE OF project_id, starts_at, severity, labels ON alert
        FOR EACH ROW
        WHEN (OLD.project_id IS DISTINCT FROM NEW.project_id
              OR OLD.starts_at IS DISTINCT FROM NEW.starts_at
              OR OLD.severity IS DISTINCT FROM NEW.severity
              OR (OLD.labels ->> 'alertname') IS DISTINCT FROM (NEW.labels ->> 'alertname'))
        EXECUTE FUNCTION insights_alert_changed();

      -- Acknowledgements added or removed (un-acknowledging deletes them all): each alert's
      -- figures are recomputed. Rows of alerts deleted with them (their project) are skipped.
      CREATE FUNCTION insights_acks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM insights_lock(project_id)
           FROM (SELECT DISTINCT a.project_id FROM changed c JOIN alert a ON a.id = c.alert_id
                  ORDER BY 1) p;
        PERFORM insights_sync_ack(alert_id)
           FROM (SELECT DISTINCT c.alert_id FROM changed c
                  WHERE EXISTS (SELECT 1 FROM alert a WHERE a.id = c.alert_id) ORDER BY 1) k;
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER insights_acks_inserted AFTER INSERT ON alert_acknowledgement
        REFERENCING NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION insights_acks_changed();
      CREATE TRIGGER insights_acks_deleted AFTER DELETE ON alert_acknowledgement
        REFERENCING OLD TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION insights_acks_changed();
      -- Not done by the application (acknowledgements are added and deleted), but kept exact.
      CREATE FUNCTION insights_ack_moved() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM insights_lock(project_id)
           FROM (SELECT DISTINCT project_id FROM alert WHERE id IN (OLD.alert_id, NEW.alert_id)
                  ORDER BY 1) p;
        PERFORM insights_sync_ack(alert_id)
           FROM (SELECT DISTINCT alert_id FROM unnest(ARRAY[OLD.alert_id, NEW.alert_id]) AS alert_id
                  ORDER BY 1) k;
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER insights_ack_moved AFTER UPDATE OF alert_id, created_at ON alert_acknowledgement
        FOR EACH ROW
        WHEN (OLD.alert_id IS DISTINCT FROM NEW.alert_id
              OR OLD.created_at IS DISTINCT FROM NEW.created_at)
        EXECUTE FUNCTION insights_ack_moved();

      -- Fired and refired events, under their alert's alertname; other kinds are not counted.
      CREATE FUNCTION insights_events_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM inserted WHERE kind IN ('fired', 'refired')) THEN
          RETURN NULL;
        END IF;
        PERFORM insights_lock(project_id)
           FROM (SELECT DISTINCT project_id FROM inserted WHERE kind IN ('fired', 'refired')
                  ORDER BY 1) p;
        INSERT INTO insights_event_day AS d (project_id, day, alertname, events)
        SELECT e.project_id, insights_day(e.created_at), insights_alertname(a.labels), count(*)
          FROM inserted e JOIN alert a ON a.id = e.alert_id AND a.project_id = e.project_id
         WHERE e.kind IN ('fired', 'refired')
         GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (project_id, day, alertname) DO UPDATE SET events = d.events + EXCLUDED.events;
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER insights_events_inserted AFTER INSERT ON alert_event
        REFERENCING NEW TABLE AS inserted
        FOR EACH STATEMENT EXECUTE FUNCTION insights_events_inserted();

      CREATE FUNCTION insights_escalations_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO insights_escalation_day AS d (project_id, day, opened, exhausted, repeated)
        SELECT project_id, insights_day(opened_at), count(*),
               count(*) FILTER (WHERE state = 'exhausted' OR exhausted_at IS NOT NULL),
               count(*) FILTER (WHERE repeat_count > 0)
          FROM inserted GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (project_id, day) DO UPDATE SET
          opened = d.opened + EXCLUDED.opened, exhausted = d.exhausted + EXCLUDED.exhausted,
          repeated = d.repeated + EXCLUDED.repeated;
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER insights_escalations_inserted AFTER INSERT ON escalation_instance
        REFERENCING NEW TABLE AS inserted
        FOR EACH STATEMENT EXECUTE FUNCTION insights_escalations_inserted();

      -- An instance that became exhausted, started or dropped its repeats (or moved): queued as
      -- its old row out and its new row in, applied by the statement trigger below.
      CREATE FUNCTION insights_escalation_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO insights_escalation_change (project_id, day, opened, exhausted, repeated)
        VALUES (OLD.project_id, insights_day(OLD.opened_at), -1,
                -(OLD.state = 'exhausted' OR OLD.exhausted_at IS NOT NULL)::integer,
                -(OLD.repeat_count > 0)::integer),
               (NEW.project_id, insights_day(NEW.opened_at), 1,
                (NEW.state = 'exhausted' OR NEW.exhausted_at IS NOT NULL)::integer,
                (NEW.repeat_count > 0)::integer);
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER insights_escalation_changed
        AFTER UPDATE OF project_id, opened_at, state, exhausted_at, repeat_count
        ON escalation_instance
        FOR EACH ROW
        WHEN (OLD.project_id IS DISTINCT FROM NEW.project_id
              OR OLD.opened_at IS DISTINCT FROM NEW.opened_at
              OR (OLD.state = 'exhausted' OR OLD.exhausted_at IS NOT NULL)
                 IS DISTINCT FROM (NEW.state = 'exhausted' OR NEW.exhausted_at IS NOT NULL)
              OR (OLD.repeat_count > 0) IS DISTINCT FROM (NEW.repeat_count > 0))
        EXECUTE FUNCTION insights_escalation_changed();

      -- Only this transaction's queued rows are visible to it (the others' are uncommitted, and
      -- every statement drains its own before it ends).
      CREATE FUNCTION insights_escalation_drain() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        WITH drained AS (DELETE FROM insights_escalation_change RETURNING *)
        INSERT INTO insights_escalation_day AS d (project_id, day, opened, exhausted, repeated)
        SELECT project_id, day, sum(opened), sum(exhausted), sum(repeated)
          FROM drained GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (project_id, day) DO UPDATE SET
          opened = d.opened + EXCLUDED.opened, exhausted = d.exhausted + EXCLUDED.exhausted,
          repeated = d.repeated + EXCLUDED.repeated;
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER insights_escalation_drain AFTER UPDATE ON escalation_instance
        FOR EACH STATEMENT EXECUTE FUNCTION insights_escalation_drain();

      CREATE FUNCTION insights_ledger_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO insights_ledger_day AS d
          (project_id, day, account_id, shard, notified, called, acked)
        SELECT project_id, insights_day(created_at), account_id, pg_backend_pid() % 8,
               count(*) FILTER (WHERE action = 'notified'),
               count(*) FILTER (WHERE action = 'called'),
               count(*) FILTER (WHERE action = 'acked')
          FROM inserted WHERE account_id IS NOT NULL
         GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (project_id, day, account_id, shard) DO UPDATE SET
          notified = d.notified + EXCLUDED.notified, called = d.called + EXCLUDED.called,
          acked = d.acked + EXCLUDED.acked;
        INSERT INTO insights_ack_channel_day AS d (project_id, day, channel, shard, acks)
        SELECT project_id, insights_day(created_at),
               CASE WHEN channel = 'sms' THEN 'phone' ELSE channel END, pg_backend_pid() % 8,
               count(*)
          FROM inserted WHERE action = 'acked'
         GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (project_id, day, channel, shard) DO UPDATE SET acks = d.acks + EXCLUDED.acks;
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER insights_ledger_inserted AFTER INSERT ON escalation_ledger
        REFERENCING NEW TABLE AS inserted
        FOR EACH STATEMENT EXECUTE FUNCTION insights_ledger_inserted();

      -- Every rollup recomputed from the raw rows, with their writers kept out meanwhile.
      CREATE FUNCTION insights_rebuild() RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        LOCK TABLE alert, alert_acknowledgement, alert_event, escalation_instance,
                   escalation_ledger IN SHARE MODE;
        TRUNCATE insights_alert_day, insights_ack_sample, insights_ack_day, insights_event_day,
                 insights_escalation_day, insights_ledger_day, insights_ack_channel_day;
        INSERT INTO insights_ack_sample (alert_id, project_id, starts_at, severity, seconds, bucket)
        SELECT a.id, a.project_id, a.starts_at, a.severity, s.seconds,
               insights_mtta_bucket(s.seconds)
          FROM alert a
          JOIN (SELECT alert_id, min(created_at) AS first_ack FROM alert_acknowledgement
                 GROUP BY alert_id) k ON k.alert_id = a.id,
               LATERAL (SELECT greatest(0, extract(epoch FROM k.first_ack - a.starts_at)::float8)
                          AS seconds) s;
        INSERT INTO insights_alert_day (project_id, day, severity, alerts, acked)
        SELECT a.project_id, insights_day(a.starts_at), a.severity, count(*), count(s.alert_id)
          FROM alert a LEFT JOIN insights_ack_sample s ON s.alert_id = a.id
         GROUP BY 1, 2, 3;
        INSERT INTO insights_ack_day (project_id, day, bucket, samples)
        SELECT project_id, insights_day(starts_at), bucket, count(*)
          FROM insights_ack_sample GROUP BY 1, 2, 3;
        INSERT INTO insights_event_day (project_id, day, alertname, events)
        SELECT e.project_id, insights_day(e.created_at), insights_alertname(a.labels), count(*)
          FROM alert_event e JOIN alert a ON a.id = e.alert_id AND a.project_id = e.project_id
         WHERE e.kind IN ('fired', 'refired')
         GROUP BY 1, 2, 3;
        INSERT INTO insights_escalation_day (project_id, day, opened, exhausted, repeated)
        SELECT project_id, insights_day(opened_at), count(*),
               count(*) FILTER (WHERE state = 'exhausted' OR exhausted_at IS NOT NULL),
               count(*) FILTER (WHERE repeat_count > 0)
          FROM escalation_instance GROUP BY 1, 2;
        INSERT INTO insights_ledger_day
          (project_id, day, account_id, shard, notified, called, acked)
        SELECT project_id, insights_day(created_at), account_id, 0,
               count(*) FILTER (WHERE action = 'notified'),
               count(*) FILTER (WHERE action = 'called'),
               count(*) FILTER (WHERE action = 'acked')
          FROM escalation_ledger WHERE account_id IS NOT NULL GROUP BY 1, 2, 3;
        INSERT INTO insights_ack_channel_day (project_id, day, channel, shard, acks)
        SELECT project_id, insights_day(created_at),
               CASE WHEN channel = 'sms' THEN 'phone' ELSE channel END, 0, count(*)
          FROM escalation_ledger WHERE action = 'acked' GROUP BY 1, 2, 3;
      END
      $$;

      SELECT insights_rebuild();
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TRIGGER insights_ledger_inserted ON escalation_ledger;
      DROP TRIGGER insights_escalation_drain ON escalation_instance;
      DROP TRIGGER insights_escalation_changed ON escalation_instance;
      DROP TRIGGER insights_escalations_inserted ON escalation_instance;
      DROP TRIGGER insights_events_inserted ON alert_event;
      DROP TRIGGER insights_ack_moved ON alert_acknowledgement;
      DROP TRIGGER insights_acks_deleted ON alert_acknowledgement;
      DROP TRIGGER insights_acks_inserted ON alert_acknowledgement;
      DROP TRIGGER insights_alert_changed ON alert;
      DROP TRIGGER insights_alerts_inserted ON alert;
      DROP FUNCTION insights_rebuild();
      DROP FUNCTION insights_ledger_inserted();
      DROP FUNCTION insights_escalation_drain();
      DROP FUNCTION insights_escalation_changed();
      DROP FUNCTION insights_escalations_inserted();
      DROP FUNCTION insights_events_inserted();
      DROP FUNCTION insights_ack_moved();
      DROP FUNCTION insights_acks_changed();
      DROP FUNCTION insights_alert_changed();
      DROP FUNCTION insights_alerts_inserted();
      DROP FUNCTION insights_sync_ack(uuid);
      DROP TABLE insights_ack_channel_day, insights_ledger_day, insights_escalation_change,
                 insights_escalation_day, insights_event_day, insights_ack_day,
                 insights_ack_sample, insights_alert_day;
      DROP FUNCTION insights_lock(uuid);
      DROP FUNCTION insights_alertname(jsonb);
      DROP FUNCTION insights_mtta_bucket(float8);
      DROP FUNCTION insights_day(timestamptz);
    `);
  }
}
