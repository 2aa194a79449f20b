import { Injectable } from '@nestjs/common';
import { ListResult, type Paging } from '@platform/core';
import type { Principal } from '@platform/identity';
import {
  type AttemptRow,
  type DeliveryRow,
  OrganizationWebhookDeliveriesRepository,
} from '../delivery/deliveries.repository.js';
import { ReceiptsRepository, type ReceiptRow } from '../receive/receipts.repository.js';
import type { WebhookDeliveryResponseDto, WebhookReceiptResponseDto } from '../webhooks.openapi.js';
import { WebhooksService } from './webhooks.service.js';

/**
 * A delivery with its attempts. `showResponses` false blanks the receivers' answers: an
 * excerpt is for those who may edit the webhook.
 */
export function deliveryView(
  row: DeliveryRow,
  attempts: AttemptRow[],
  showResponses: boolean,
): WebhookDeliveryResponseDto {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event: row.event,
    status: row.status,
    attempt_count: row.attempts,
    last_attempt_at: row.last_attempt_at,
    next_attempt_at: row.next_attempt_at,
    created_at: row.created_at,
    payload: row.payload,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      started_at: a.started_at,
      response_status: a.response_status,
      response_body: showResponses ? a.response_body : null,
      error: a.error,
      duration_ms: a.duration_ms,
    })),
  };
}

export function receiptView(row: ReceiptRow): WebhookReceiptResponseDto {
  return {
    id: row.id,
    received_at: row.received_at,
    event_type: row.event_type,
    resource_url: row.resource_url,
    digest: row.digest,
    outcome: row.outcome,
    apps: row.apps,
    error: row.error,
  };
}

/** What a webhook did: its outbound deliveries and its inbound receipts, newest first. */
@Injectable()
export class WebhookHistoryService {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly deliveries: OrganizationWebhookDeliveriesRepository,
    private readonly receipts: ReceiptsRepository,
  ) {}

  async deliveryPage(
    principal: Principal,
    id: string,
    paging: Paging & { showResponses: boolean },
  ) {
    await this.webhooks.found(principal, id);
    const page = await this.deliveries.page(id, paging.limit, paging.offset);
    return new ListResult(
      page.items.map((d) => deliveryView(d, d.attempt_list, paging.showResponses)),
      page.total,
    );
  }

  async receiptPage(principal: Principal, id: string, paging: Paging) {
    await this.webhooks.found(principal, id);
    const page = await this.receipts.page(id, paging.limit, paging.offset);
    return new ListResult(page.items.map(receiptView), page.total);
  }
}
