import { Inject, Injectable } from '@nestjs/common';
import { actorOf, AuditLog } from '@platform/audit';
import { Clock } from '@platform/core';
import { organizationOf, type Principal } from '@platform/identity';
import { OutboundHttp } from '@platform/outbound';
import { generateWebhookSecret } from '@platform/alerting';
import { DataSource, type EntityManager } from 'typeorm';
import {
  ORGANIZATION_WEBHOOK_POLICY,
  type OrganizationWebhookPolicy,
} from '../delivery/delivery-policy.js';
import type { WebhookResponseDto } from '../webhooks.openapi.js';
import { urlNotAllowed, webhookNotFound } from '../webhooks-exception.js';
import { generateReceiveSecret, hashReceiveSecret } from '../secrets.js';
import { type WebhookChanges, type WebhookRow, WebhooksRepository } from './webhooks.repository.js';

export function webhookView(row: WebhookRow): WebhookResponseDto {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * Webhooks of the caller's organization. Every change is audited (`webhooks.create`,
 * `webhooks.update`, `webhooks.delete`, `webhooks.rotate_secret`,
 * `webhooks.rotate_signing_secret`) in the transaction that makes it. Secrets appear only in
 * the answer that made them; another organization's webhook is 404 like an unknown one.
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly clock: Clock,
    private readonly dataSource: DataSource,
    private readonly webhooks: WebhooksRepository,
    private readonly outbound: OutboundHttp,
    private readonly audit: AuditLog,
    @Inject(ORGANIZATION_WEBHOOK_POLICY) private readonly policy: OrganizationWebhookPolicy,
  ) {}

  async list(principal: Principal) {
    return (await this.webhooks.list(organizationOf(principal))).map(webhookView);
  }

  async show(principal: Principal, id: string) {
    return webhookView(await this.found(principal, id));
  }

  async create(principal: Principal, input: { name: string; url: string }) {
    await this.checkUrl(input.url);
    const secret = generateReceiveSecret();
    const signingSecret = generateWebhookSecret();
    const row = await this.dataSource.transaction(async (manager) => {
      const created = await this.webhooks.create(
        {
          organizationId: organizationOf(principal),
          name: input.name,
          url: input.url,
          receiveSecretHash: hashReceiveSecret(secret),
          signingSecret,
          at: this.clock.now(),
        },
        manager,
      );
      await this.record(principal, 'webhooks.create', created, manager, {
        name: created.name,
        url: created.url,
      });
      return created;
    });
    return { ...webhookView(row), secret, signing_secret: signingSecret };
  }

  async update(principal: Principal, id: string, changes: WebhookChanges) {
    const given = Object.fromEntries(
      Object.entries(changes).filter(([, value]) => value !== undefined),
    ) as WebhookChanges;
    if (Object.keys(given).length === 0) return this.show(principal, id);
    if (given.url !== undefined) await this.checkUrl(given.url);
    const row = await this.dataSource.transaction(async (manager) => {
      const updated = await this.webhooks.update(
        organizationOf(principal),
        id,
        given,
        this.clock.now(),
        manager,
      );
      if (!updated) throw webhookNotFound();
      await this.record(principal, 'webhooks.update', updated, manager, { changes: given });
      return updated;
    });
    return webhookView(row);
  }

  async remove(principal: Principal, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const row = await this.webhooks.delete(organizationOf(principal), id, manager);
      if (!row) throw webhookNotFound();
      await this.record(principal, 'webhooks.delete', row, manager, { name: row.name });
    });
  }

  /** A new receive secret; the old one stops authenticating at once (it may have leaked). */
  async rotateSecret(principal: Principal, id: string) {
    const secret = generateReceiveSecret();
    const row = await this.dataSource.transaction(async (manager) => {
      const updated = await this.webhooks.replaceReceiveSecret(
        organizationOf(principal),
        id,
        hashReceiveSecret(secret),
        this.clock.now(),
        manager,
      );
      if (!updated) throw webhookNotFound();
      await this.record(principal, 'webhooks.rotate_secret', updated, manager);
      return updated;
    });
    return { ...webhookView(row), secret };
  }

  /**
   * A new signing secret; the previous one keeps signing alongside for the policy's grace
   * period, so receivers can switch over without rejecting deliveries.
   */
  async rotateSigningSecret(principal: Principal, id: string) {
    const now = this.clock.now();
    const signingSecret = generateWebhookSecret();
    const row = await this.dataSource.transaction(async (manager) => {
      const updated = await this.webhooks.rotateSigningSecret(
        organizationOf(principal),
        id,
        signingSecret,
        now,
        new Date(now.getTime() + this.policy.previousSecretGraceMs),
        manager,
      );
      if (!updated) throw webhookNotFound();
      await this.record(principal, 'webhooks.rotate_signing_secret', updated, manager);
      return updated;
    });
    return { ...webhookView(row), signing_secret: signingSecret };
  }

  /** The webhook of the caller's organization, or 404. */
  async found(principal: Principal, id: string): Promise<WebhookRow> {
    const row = await this.webhooks.find(organizationOf(principal), id);
    if (!row) throw webhookNotFound();
    return row;
  }

  /**
   * 422 `url_not_allowed` for a URL the outbound client would refuse now (loopback, private,
   * metadata addresses...). Deliveries check again at send time, as DNS answers change.
   */
  private async checkUrl(url: string): Promise<void> {
    const refusal = await this.outbound.refusal(url);
    if (refusal) throw urlNotAllowed(refusal);
  }

  private async record(
    principal: Principal,
    action: string,
    row: WebhookRow,
    manager: EntityManager,
    details: Record<string, unknown> = {},
  ): Promise<void> {
    await this.audit.record(
      {
        actor: actorOf(principal),
        action,
        organizationId: row.organization_id,
        projectId: null,
        target: { type: 'webhook', id: row.id },
        details,
      },
      manager,
    );
  }
}
