import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Organization webhooks: an inbound side (container-registry pushes authenticated by a receive
 * secret, each authenticated receive recorded as a receipt) and an outbound side (app and
 * cluster events POSTed to the webhook's url, signed, with every HTTP attempt recorded).
 * Receipts and deliveries are kept 90 days (pruned by age).
 */
export class OrganizationWebhooks1764000000024 implements MigrationInterface {
  name = 'OrganizationWebhooks1764000000024';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE organization_webhook (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
        name text NOT NULL,
        url text NOT NULL,
        -- SHA-256 (hex) of the receive secret: the secret is shown once and never stored. A
        -- fast hash is enough, as the secret is 32 random bytes, not a password.
        receive_secret_hash text NOT NULL,
        -- Standard Webhooks signing secret (whsec_<base64>); kept readable because every
        -- delivery is signed with it. After a rotation the previous one still signs too
        -- until previous_signing_secret_expires_at, so receivers can switch over.
        signing_secret text NOT NULL,
        previous_signing_secret text,
        previous_signing_secret_expires_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX organization_webhook_organization_idx
        ON organization_webhook (organization_id, created_at, id);

      CREATE TABLE organization_webhook_receipt (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        webhook_id uuid NOT NULL REFERENCES organization_webhook (id) ON DELETE CASCADE,
        received_at timestamptz NOT NULL,
        -- As sent (null when the body had no string type), cut to 1024 characters.
        event_type text,
        resource_url text,
        digest text,
        outcome text NOT NULL CHECK (outcome IN
          ('reconciled', 'unchanged', 'no_match', 'ignored', 'invalid', 'failed')),
        -- Every matching app: [{app_id, project_id, name, digest, changed}].
        apps jsonb NOT NULL DEFAULT '[]'::jsonb,
        error text
      );
      CREATE INDEX organization_webhook_receipt_webhook_idx
        ON organization_webhook_receipt (webhook_id, received_at DESC, id DESC);
      CREATE INDEX organization_webhook_receipt_received_idx
        ON organization_webhook_receipt (received_at);

      CREATE TABLE organization_webhook_delivery (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        webhook_id uuid NOT NULL REFERENCES organization_webhook (id) ON DELETE CASCADE,
        organization_id uuid NOT NULL,
        -- Not constrained here: event types are added in code as the platform emits more.
        event text NOT NULL,
        payload jsonb NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        last_attempt_at timestamptz,
        next_attempt_at timestamptz,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX organization_webhook_delivery_webhook_idx
        ON organization_webhook_delivery (webhook_id, created_at DESC, id DESC);
      CREATE INDEX organization_webhook_delivery_created_idx
        ON organization_webhook_delivery (created_at);

      CREATE TABLE organization_webhook_delivery_attempt (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        delivery_id uuid NOT NULL
          REFERENCES organization_webhook_delivery (id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        started_at timestamptz NOT NULL,
        response_status integer,
        -- The start of a failed attempt's answer, for debugging; never the whole body.
        response_body text,
        error text,
        duration_ms integer NOT NULL,
        UNIQUE (delivery_id, attempt)
      );
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE organization_webhook_delivery_attempt;
      DROP TABLE organization_webhook_delivery;
      DROP TABLE organization_webhook_receipt;
      DROP TABLE organization_webhook;
    `);
  }
}
