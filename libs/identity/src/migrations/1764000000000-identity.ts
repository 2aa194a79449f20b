import type { MigrationInterface, QueryRunner } from 'typeorm';

const ROLES = `'admin', 'developer', 'operator', 'viewer', 'billing_manager'`;

/** Accounts, organizations, projects, memberships, legal consent, tokens and invitations. */
export class Identity1764000000000 implements MigrationInterface {
  name = 'Identity1764000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE account (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        login text NOT NULL,
        name text NOT NULL,
        password_hash text,
        email_verified_at timestamptz,
        is_platform_admin boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX account_login_key ON account (lower(login));

      CREATE TABLE organization (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE membership (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES account (id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN (${ROLES})),
        permissions jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT membership_account_organization_key UNIQUE (account_id, organization_id)
      );
      CREATE INDEX membership_organization_idx ON membership (organization_id);

      CREATE TABLE project (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT project_organization_name_key UNIQUE (organization_id, name)
      );

      CREATE TABLE legal_document (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        doc_type text NOT NULL CHECK (doc_type IN ('agb', 'nutzungsbedingungen', 'datenschutz')),
        version integer NOT NULL CHECK (version > 0),
        title text NOT NULL,
        content text NOT NULL,
        content_hash text NOT NULL,
        published_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT legal_document_type_version_key UNIQUE (doc_type, version)
      );

      CREATE TABLE legal_consent (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES account (id) ON DELETE CASCADE,
        doc_type text NOT NULL,
        version integer NOT NULL,
        content_hash text NOT NULL,
        accepted_at timestamptz NOT NULL
      );
      CREATE INDEX legal_consent_account_idx ON legal_consent (account_id);

      CREATE TABLE email_verification (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES account (id) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE api_token (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES account (id) ON DELETE CASCADE,
        project_id uuid REFERENCES project (id) ON DELETE CASCADE,
        name text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('api', 'ingest')),
        token_hash text NOT NULL UNIQUE,
        last4 text NOT NULL,
        scopes text[] NOT NULL CHECK (cardinality(scopes) > 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      );
      CREATE INDEX api_token_organization_idx ON api_token (organization_id, created_at) WHERE revoked_at IS NULL;

      CREATE TABLE invitation (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
        email text NOT NULL,
        role text NOT NULL CHECK (role IN (${ROLES})),
        token_hash text NOT NULL UNIQUE,
        invited_by uuid REFERENCES account (id) ON DELETE SET NULL,
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        declined_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX invitation_organization_idx ON invitation (organization_id);
    `);

    const documents: Array<[string, string, string]> = [
      [
        'agb',
        'Allgemeine Geschäftsbedingungen',
        'Allgemeine Geschäftsbedingungen der Plattform. Fassung 1. Diese Bedingungen regeln die Nutzung der Cloud-Dienste der Plattform durch Organisationen und ihre Mitglieder.',
      ],
      [
        'nutzungsbedingungen',
        'Nutzungsbedingungen',
        'Nutzungsbedingungen der Plattform. Fassung 1. Die Dienste dürfen nur im Rahmen der geltenden Gesetze und dieser Bedingungen genutzt werden.',
      ],
      [
        'datenschutz',
        'Datenschutzerklärung',
        'Datenschutzerklärung der Plattform. Fassung 1. Wir verarbeiten personenbezogene Daten nur, soweit dies für die Erbringung der Dienste erforderlich ist.',
      ],
    ];
    for (const [docType, title, content] of documents) {
      await runner.query(
        `INSERT INTO legal_document (doc_type, version, title, content, content_hash)
         VALUES ($1, 1, $2, $3, encode(sha256(convert_to($3, 'UTF8')), 'hex'))`,
        [docType, title, content],
      );
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE invitation, api_token, email_verification, legal_consent, legal_document,
        project, membership, organization, account;
    `);
  }
}
