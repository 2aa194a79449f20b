import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The notification center: categories, notifications, preferences, schedules, absences,
 * broadcasts, e-mail waiting for a digest, delivery records and verified phone numbers.
 */
export class Notifications1764000000001 implements MigrationInterface {
  name = 'Notifications1764000000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE notification_category (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        key text NOT NULL UNIQUE,
        label text NOT NULL,
        default_channels text[] NOT NULL,
        mandatory_for_admins boolean NOT NULL,
        severity text NOT NULL CHECK (severity IN ('info', 'notice', 'critical')),
        feature_key text,
        superadmin_only boolean NOT NULL,
        position integer NOT NULL
      );
      INSERT INTO notification_category
        (key, label, default_channels, mandatory_for_admins, severity, feature_key, superadmin_only, position)
      VALUES
        ('security', 'Security', '{in_app,email}', true, 'critical', NULL, false, 1),
        ('billing', 'Billing', '{in_app,email}', true, 'notice', NULL, false, 2),
        ('platform_incident', 'Platform Incidents', '{in_app,email}', true, 'critical', NULL, false, 3),
        ('capability_update', 'Capability Updates', '{in_app,email}', true, 'notice', NULL, false, 4),
        ('alert_escalation', 'Alert Escalations', '{in_app,email}', true, 'critical', 'alerts', false, 5),
        ('feature_request', 'Feature Requests', '{in_app}', false, 'info', NULL, false, 6),
        ('broadcast', 'Broadcasts', '{in_app}', false, 'info', NULL, true, 7);

      CREATE TABLE notification (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES account (id) ON DELETE CASCADE,
        organization_id uuid REFERENCES organization (id) ON DELETE CASCADE,
        category_key text NOT NULL REFERENCES notification_category (key),
        event_type text NOT NULL,
        payload jsonb NOT NULL DEFAULT '{}'::jsonb,
        read_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX notification_account_created_idx ON notification (account_id, created_at DESC, id DESC);
      CREATE INDEX notification_account_unread_idx ON notification (account_id) WHERE read_at IS NULL;

      CREATE TABLE notification_preference (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES account (id) ON DELETE CASCADE,
        category_key text NOT NULL REFERENCES notification_category (key),
        channel text NOT NULL CHECK (channel IN ('in_app', 'email', 'phone', 'sms')),
        enabled boolean NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT notification_preference_key UNIQUE (account_id, category_key, channel)
      );

      CREATE TABLE notification_schedule (
        account_id uuid PRIMARY KEY REFERENCES account (id) ON DELETE CASCADE,
        email_mode text NOT NULL CHECK (email_mode IN ('instant', 'hourly_digest', 'daily_digest')),
        quiet_start text,
        quiet_end text,
        timezone text NOT NULL,
        digest_hour integer NOT NULL CHECK (digest_hour BETWEEN 0 AND 23),
        last_digest_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE notification_absence (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES account (id) ON DELETE CASCADE,
        starts_at timestamptz NOT NULL,
        ends_at timestamptz NOT NULL,
        note text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT notification_absence_window CHECK (ends_at > starts_at)
      );
      CREATE INDEX notification_absence_account_idx ON notification_absence (account_id, starts_at);

      CREATE TABLE broadcast (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        title text NOT NULL,
        body text NOT NULL,
        severity text NOT NULL CHECK (severity IN ('info', 'notice', 'critical')),
        banner boolean NOT NULL,
        published_at timestamptz NOT NULL,
        created_by uuid REFERENCES account (id) ON DELETE SET NULL
      );
      CREATE INDEX broadcast_published_idx ON broadcast (published_at DESC) WHERE banner;

      CREATE TABLE broadcast_dismissal (
        broadcast_id uuid NOT NULL REFERENCES broadcast (id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES account (id) ON DELETE CASCADE,
        dismissed_at timestamptz NOT NULL,
        PRIMARY KEY (account_id, broadcast_id)
      );

      CREATE TABLE pending_email (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES account (id) ON DELETE CASCADE,
        notification_id uuid REFERENCES notification (id) ON DELETE SET NULL,
        category_key text NOT NULL,
        subject text NOT NULL,
        text text NOT NULL,
        html text,
        created_at timestamptz NOT NULL,
        sent_at timestamptz
      );
      CREATE INDEX pending_email_unsent_idx ON pending_email (account_id, created_at) WHERE sent_at IS NULL;

      CREATE TABLE notification_delivery (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        notification_id uuid REFERENCES notification (id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES account (id) ON DELETE CASCADE,
        channel text NOT NULL CHECK (channel IN ('email', 'phone', 'sms')),
        status text NOT NULL CHECK (status IN ('queued', 'held', 'sent', 'failed', 'skipped')),
        reason text,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX notification_delivery_notification_idx ON notification_delivery (notification_id);

      ALTER TABLE account ADD COLUMN phone_number text, ADD COLUMN phone_verified_at timestamptz;

      CREATE TABLE phone_verification (
        account_id uuid PRIMARY KEY REFERENCES account (id) ON DELETE CASCADE,
        phone_number text NOT NULL,
        code_hash text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL
      );
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE phone_verification, notification_delivery, pending_email, broadcast_dismissal,
        broadcast, notification_absence, notification_schedule, notification_preference,
        notification, notification_category;
      ALTER TABLE account DROP COLUMN phone_number, DROP COLUMN phone_verified_at;
    `);
  }
}
