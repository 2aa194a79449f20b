import { Injectable } from '@nestjs/common';
import { AppException, Clock, UUID_PATTERN } from '@platform/core';
import { type ReceiveTarget, WebhooksRepository } from '../manage/webhooks.repository.js';
import { presentedSecret, receiveSecretMatches } from '../secrets.js';
import type { ReconciledAppDto, WebhookReceiveResultDto } from '../webhooks.openapi.js';
import { receiveUnauthorized } from '../webhooks-exception.js';
import { type ContainerApp, ContainerApps } from './container-apps.js';
import { parseInboundEvent } from './push-event.js';
import { type NewReceipt, type ReceiptApp, ReceiptsRepository } from './receipts.repository.js';

const MAX_RECORDED_CHARS = 1024;
const cut = (value: unknown) =>
  typeof value === 'string' ? value.slice(0, MAX_RECORDED_CHARS) : null;

const reconciledView = (app: ReceiptApp): ReconciledAppDto => ({
  app_id: app.app_id,
  project_id: app.project_id,
  name: app.name,
  digest: app.digest,
});

/**
 * The public receive of a webhook: a container-registry push reconciles the organization's
 * container apps that run the pushed image and tag, by pinning their HelmRelease to the pushed
 * digest. Every authenticated receive is recorded as a receipt (when, what, outcome, apps);
 * unauthenticated ones are not, so nobody without the secret can fill the table.
 *
 * A replayed push (every matching app already at the digest) patches nothing and lists those
 * apps under `unchanged`, not `reconciled`. Pinning tells nobody yet: `app.deployed` goes out
 * from the worker once Flux reports the rollout Ready (or `app.failed` when it fails). A cluster failure midway leaves the apps already
 * pinned as they are; the registry's retry pins the rest and reports the first ones unchanged.
 */
@Injectable()
export class WebhookReceiveService {
  constructor(
    private readonly clock: Clock,
    private readonly webhooks: WebhooksRepository,
    private readonly receipts: ReceiptsRepository,
    private readonly apps: ContainerApps,
  ) {}

  async receive(
    id: string,
    authorization: string | undefined,
    body: unknown,
  ): Promise<WebhookReceiveResultDto> {
    const webhook = await this.authenticate(id, authorization);
    const receipt: NewReceipt = {
      webhook_id: webhook.id,
      received_at: this.clock.now(),
      event_type: cut((body as { type?: unknown } | null)?.type),
      resource_url: null,
      digest: null,
      outcome: 'invalid',
      apps: [],
      error: null,
    };
    let event: ReturnType<typeof parseInboundEvent>;
    try {
      event = parseInboundEvent(body);
    } catch (error) {
      await this.receipts.record({ ...receipt, error: (error as Error).message });
      throw error;
    }
    if (event.kind === 'other') {
      await this.receipts.record({ ...receipt, outcome: 'ignored' });
      return { reconciled: [], unchanged: [] };
    }
    receipt.resource_url = cut(event.resourceUrl);
    receipt.digest = event.digest;
    const { repository, tag } = event.reference;
    try {
      const matches = tag ? await this.apps.matching(webhook.organization_id, repository, tag) : [];
      for (const app of matches) {
        const entry = await this.reconcile(app, event.digest);
        if (entry) receipt.apps.push(entry);
      }
    } catch (error) {
      await this.receipts.record({ ...receipt, outcome: 'failed', error: describe(error) });
      // The apps pinned before the failure stay pinned; a retry will find them unchanged.
      throw error;
    }
    const reconciled = receipt.apps.filter((app) => app.changed);
    receipt.outcome =
      reconciled.length > 0 ? 'reconciled' : receipt.apps.length > 0 ? 'unchanged' : 'no_match';
    await this.receipts.record(receipt);
    return {
      reconciled: reconciled.map(reconciledView),
      unchanged: receipt.apps.filter((app) => !app.changed).map(reconciledView),
    };
  }

  /**
   * The webhook whose receive secret the header carries. Malformed and unknown ids answer the
   * same 401 as a wrong secret, so the route tells nobody which webhooks exist.
   */
  private async authenticate(
    id: string,
    authorization: string | undefined,
  ): Promise<ReceiveTarget> {
    const secret = presentedSecret(authorization);
    if (!secret || !UUID_PATTERN.test(id)) throw receiveUnauthorized();
    const webhook = await this.webhooks.receiveTarget(id);
    if (!webhook || !receiveSecretMatches(secret, webhook.receive_secret_hash))
      throw receiveUnauthorized();
    return webhook;
  }

  /** Pins one app unless it runs the digest already; null when its release vanished. */
  private async reconcile(app: ContainerApp, digest: string): Promise<ReceiptApp | null> {
    const entry = {
      app_id: app.appId,
      project_id: app.projectId,
      name: app.name,
      digest,
    };
    if (app.digest === digest) return { ...entry, changed: false };
    return (await this.apps.pin(app, digest)) ? { ...entry, changed: true } : null;
  }
}

/** The error code and message of a failure, for the receipt. */
function describe(error: unknown): string {
  if (error instanceof AppException) return `${error.code}: ${error.message}`.slice(0, 500);
  return ((error as Error)?.message ?? String(error)).slice(0, 500);
}
