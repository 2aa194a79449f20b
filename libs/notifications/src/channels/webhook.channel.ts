import { Injectable, Optional } from '@nestjs/common';
import { MetricsService } from '@platform/core';
import { OutboundHttp } from '@platform/outbound';
import type { DeliveryChannel, FailureVerdict, Receipt } from './channel.js';
import { type SendResult, type SignedRequest, sendSignedWebhook } from './webhook-sender.js';

/** A receiver's answer that was not a 2xx, or a POST that could not be made. */
export class WebhookRejected extends Error {
  constructor(readonly result: SendResult) {
    super(result.error ?? 'webhook not accepted');
    this.name = 'WebhookRejected';
  }
}

/**
 * Standard Webhooks POSTs through the outbound client (which refuses private addresses). A URL
 * the client refuses fails the delivery at once: it is the endpoint's address, not the receiver,
 * that must change; any other failure is retried. The answer (status, excerpt, duration) travels
 * in the receipt's `detail` or the rejection's `result` for the attempt log.
 */
@Injectable()
export class WebhookChannel implements DeliveryChannel<SignedRequest> {
  readonly name = 'webhook';

  constructor(
    private readonly outbound: OutboundHttp,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  async send(request: SignedRequest): Promise<Receipt> {
    const result = await sendSignedWebhook(this.outbound, request);
    this.metrics?.countDelivery('webhook', result.ok ? 'sent' : 'failed');
    if (!result.ok) throw new WebhookRejected(result);
    return { providerRef: null, address: request.url, detail: { result } };
  }

  classify(error: unknown): FailureVerdict {
    if (error instanceof WebhookRejected)
      return { retry: !error.result.refused, reason: error.result.error ?? 'not accepted' };
    return { retry: true, reason: (error as Error).message };
  }
}
