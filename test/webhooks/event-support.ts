import type { TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import type { WebhookReceiver } from '../alerting/endpoints-receiver.js';
import { bearer, type TestAccount } from '../support/identity.js';

/*
 * What the tests of the app, cluster and server events share: a webhook of an organization
 * pointing at a local receiver that verifies its signatures, and the deliveries made.
 */

/** A webhook of `account`'s organization at the receiver, whose signing secret it trusts. */
export async function eventWebhook(
  t: TestApp,
  account: TestAccount,
  receiver: WebhookReceiver,
): Promise<{ id: string; signing_secret: string }> {
  const res = await t
    .request()
    .post('/webhooks')
    .set(bearer(account.jwt))
    .send({ webhook: { name: 'events', url: receiver.url(`/events/${account.organizationId}`) } })
    .expect(201);
  receiver.secrets.push(res.body.data.signing_secret as string);
  return res.body.data as { id: string; signing_secret: string };
}

export interface DeliveryRow {
  id: string;
  organization_id: string;
  event: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
}

/** The deliveries made to an organization's webhooks, oldest first, of one event or all. */
export function deliveriesTo(
  t: TestApp,
  organizationId: string,
  event?: string,
): Promise<DeliveryRow[]> {
  return t.get(DataSource).query(
    `SELECT id, organization_id, event, payload FROM organization_webhook_delivery
        WHERE organization_id = $1 AND ($2::text IS NULL OR event = $2)
        ORDER BY created_at, id`,
    [organizationId, event ?? null],
  );
}

/** The transitions claimed for an object. */
export async function claimsOf(t: TestApp, objectUid: string): Promise<string[]> {
  const rows: Array<{ transition: string }> = await t
    .get(DataSource)
    .query(
      `SELECT transition FROM organization_webhook_event WHERE object_uid = $1 ORDER BY transition`,
      [objectUid],
    );
  return rows.map((row) => row.transition);
}

/** Waits until every watcher has its first list and nothing left to emit. */
export async function quiet(
  ...watchers: Array<{ whenSynced(): Promise<void>; idle(): Promise<void> } | undefined>
): Promise<void> {
  for (const watcher of watchers) {
    if (!watcher) throw new Error('a watcher is not running');
    await watcher.whenSynced();
  }
  // Events already sent may still be on their way through the watch: a short grace.
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (const watcher of watchers) await watcher!.idle();
}
