import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export interface WebhookRow {
  id: string;
  organization_id: string;
  name: string;
  url: string;
  created_at: Date;
  updated_at: Date;
}

/** What authenticating a receive needs, and nothing more. */
export interface ReceiveTarget {
  id: string;
  organization_id: string;
  receive_secret_hash: string;
}

export interface WebhookChanges {
  name?: string;
  url?: string;
}

const COLUMNS = 'id, organization_id, name, url, created_at, updated_at';

/** Webhooks of an organization; neither secret ever leaves through a read of the row. */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly dataSource: DataSource) {}

  list(organizationId: string): Promise<WebhookRow[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM organization_webhook
        WHERE organization_id = $1 ORDER BY created_at, id`,
      [organizationId],
    );
  }

  async find(organizationId: string, id: string): Promise<WebhookRow | null> {
    const rows: WebhookRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM organization_webhook WHERE id = $1 AND organization_id = $2`,
      [id, organizationId],
    );
    return rows[0] ?? null;
  }

  /** Any organization's webhook: the receive route learns the organization from the webhook. */
  async receiveTarget(id: string): Promise<ReceiveTarget | null> {
    const rows: ReceiveTarget[] = await this.dataSource.query(
      'SELECT id, organization_id, receive_secret_hash FROM organization_webhook WHERE id = $1',
      [id],
    );
    return rows[0] ?? null;
  }

  async create(
    webhook: {
      organizationId: string;
      name: string;
      url: string;
      receiveSecretHash: string;
      signingSecret: string;
      at: Date;
    },
    manager: EntityManager,
  ): Promise<WebhookRow> {
    const rows: WebhookRow[] = await manager.query(
      `INSERT INTO organization_webhook
         (organization_id, name, url, receive_secret_hash, signing_secret, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6)
       RETURNING ${COLUMNS}`,
      [
        webhook.organizationId,
        webhook.name,
        webhook.url,
        webhook.receiveSecretHash,
        webhook.signingSecret,
        webhook.at,
      ],
    );
    return rows[0];
  }

  /** Applies the given fields only; null when the webhook is not the organization's. */
  async update(
    organizationId: string,
    id: string,
    changes: WebhookChanges,
    at: Date,
    manager: EntityManager,
  ): Promise<WebhookRow | null> {
    const [rows]: [WebhookRow[], number] = await manager.query(
      `UPDATE organization_webhook
          SET name = COALESCE($3, name), url = COALESCE($4, url), updated_at = $5
        WHERE id = $1 AND organization_id = $2
        RETURNING ${COLUMNS}`,
      [id, organizationId, changes.name ?? null, changes.url ?? null, at],
    );
    return rows[0] ?? null;
  }

  /** Replaces the receive secret at once: the old one stops authenticating now. */
  async replaceReceiveSecret(
    organizationId: string,
    id: string,
    hash: string,
    at: Date,
    manager: EntityManager,
  ): Promise<WebhookRow | null> {
    const [rows]: [WebhookRow[], number] = await manager.query(
      `UPDATE organization_webhook SET receive_secret_hash = $3, updated_at = $4
        WHERE id = $1 AND organization_id = $2
        RETURNING ${COLUMNS}`,
      [id, organizationId, hash, at],
    );
    return rows[0] ?? null;
  }

  /**
   * Replaces the signing secret; the old one keeps signing (as a second signature) until
   * `previousUntil`.
   */
  async rotateSigningSecret(
    organizationId: string,
    id: string,
    secret: string,
    at: Date,
    previousUntil: Date,
    manager: EntityManager,
  ): Promise<WebhookRow | null> {
    const [rows]: [WebhookRow[], number] = await manager.query(
      `UPDATE organization_webhook
          SET previous_signing_secret = signing_secret,
              previous_signing_secret_expires_at = $4,
              signing_secret = $3,
              updated_at = $5
        WHERE id = $1 AND organization_id = $2
        RETURNING ${COLUMNS}`,
      [id, organizationId, secret, previousUntil, at],
    );
    return rows[0] ?? null;
  }

  /** Deletes the webhook (its receipts and deliveries with it); null when not the organization's. */
  async delete(
    organizationId: string,
    id: string,
    manager: EntityManager,
  ): Promise<WebhookRow | null> {
    const [rows]: [WebhookRow[], number] = await manager.query(
      `DELETE FROM organization_webhook WHERE id = $1 AND organization_id = $2
       RETURNING ${COLUMNS}`,
      [id, organizationId],
    );
    return rows[0] ?? null;
  }
}
