import type { DeliveryResponseDto, NotificationEndpointResponseDto } from '../alerting.openapi.js';
import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { OutboundHttp } from '@platform/outbound';
import { alertingNotFound, urlNotAllowed } from '../alerting-exception.js';
import { EndpointFanout } from './endpoint-fanout.service.js';
import {
  ENDPOINT_EVENTS,
  type EndpointChanges,
  type EndpointEvent,
  type EndpointRow,
  EndpointsRepository,
} from './endpoints.repository.js';
import { normalizeEvents } from './notification-endpoints.dto.js';
import {
  type AttemptRow,
  type DeliveryRow,
  WebhookDeliveriesRepository,
} from './webhook-deliveries.repository.js';
import {
  generateWebhookSecret,
  WEBHOOK_DELIVERY_POLICY,
  type WebhookDeliveryPolicy,
} from './webhook-policy.js';

export function endpointView(row: EndpointRow): NotificationEndpointResponseDto {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    url: row.url,
    enabled: row.enabled,
    events: row.events,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * A delivery with its attempts. `showResponses` false blanks the receivers' answers
 * (`response_body` null): an excerpt is for those who may edit the endpoint.
 */
export function deliveryView(
  row: DeliveryRow,
  attempts: AttemptRow[],
  showResponses = true,
): DeliveryResponseDto {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    alert_id: row.alert_id,
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

@Injectable()
export class NotificationEndpointsService {
  constructor(
    private readonly clock: Clock,
    private readonly endpoints: EndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly fanout: EndpointFanout,
    private readonly outbound: OutboundHttp,
    @Inject(WEBHOOK_DELIVERY_POLICY) private readonly policy: WebhookDeliveryPolicy,
  ) {}

  async list(projectId: string) {
    return (await this.endpoints.list(projectId)).map(endpointView);
  }

  async show(projectId: string, id: string) {
    return endpointView(await this.found(projectId, id));
  }

  /** The only answer that carries the secret, besides a rotation. */
  async create(
    projectId: string,
    input: { name: string; url: string; enabled?: boolean; events?: EndpointEvent[] },
  ) {
    await this.checkUrl(input.url);
    const secret = generateWebhookSecret();
    const row = await this.endpoints.create({
      projectId,
      name: input.name,
      url: input.url,
      enabled: input.enabled ?? true,
      events: normalizeEvents(input.events ?? ENDPOINT_EVENTS),
      secret,
      at: this.clock.now(),
    });
    return { ...endpointView(row), secret };
  }

  async update(projectId: string, id: string, changes: EndpointChanges) {
    const given = Object.fromEntries(
      Object.entries(changes).filter(([, value]) => value !== undefined),
    ) as EndpointChanges;
    if (Object.keys(given).length === 0) return this.show(projectId, id);
    if (given.events) given.events = normalizeEvents(given.events);
    if (given.url !== undefined) await this.checkUrl(given.url);
    const row = await this.endpoints.update(projectId, id, given, this.clock.now());
    if (!row) throw alertingNotFound('Notification endpoint');
    return endpointView(row);
  }

  async remove(projectId: string, id: string): Promise<void> {
    if (!(await this.endpoints.delete(projectId, id))) {
      throw alertingNotFound('Notification endpoint');
    }
  }

  async rotateSecret(projectId: string, id: string) {
    const now = this.clock.now();
    const secret = generateWebhookSecret();
    const row = await this.endpoints.rotateSecret(
      projectId,
      id,
      secret,
      now,
      new Date(now.getTime() + this.policy.previousSecretGraceMs),
    );
    if (!row) throw alertingNotFound('Notification endpoint');
    return { ...endpointView(row), secret };
  }

  async deliveryPage(
    projectId: string,
    id: string,
    paging: { limit: number; offset: number; showResponses: boolean },
  ) {
    await this.found(projectId, id);
    const page = await this.deliveries.page(id, paging.limit, paging.offset);
    return {
      items: page.items.map((d) => deliveryView(d, d.attempt_list, paging.showResponses)),
      total: page.total,
    };
  }

  async sendTest(projectId: string, id: string) {
    const delivery = await this.deliveries.createTestDelivery(projectId, id, this.clock.now());
    if (!delivery) throw alertingNotFound('Notification endpoint');
    await this.fanout.enqueue([delivery.id]);
    return deliveryView(delivery, []);
  }

  /**
   * 422 `url_not_allowed` for a URL the outbound client would refuse now (loopback, private,
   * metadata addresses...). Deliveries check again at send time, as DNS answers change.
   */
  private async checkUrl(url: string): Promise<void> {
    const refusal = await this.outbound.refusal(url);
    if (refusal) throw urlNotAllowed('url', refusal);
  }

  private async found(projectId: string, id: string): Promise<EndpointRow> {
    const row = await this.endpoints.find(projectId, id);
    if (!row) throw alertingNotFound('Notification endpoint');
    return row;
  }
}
