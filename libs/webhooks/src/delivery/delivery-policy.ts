import { DEFAULT_WEBHOOK_DELIVERY_POLICY, type WebhookDeliveryPolicy } from '@platform/alerting';

/**
 * How organization webhook deliveries are attempted: the notification endpoints' policy (8
 * attempts with exponential backoff from one minute, 10 seconds per request, the previous
 * signing secret signing along for 24 hours after a rotation), under a token of its own so the
 * two can be tuned apart.
 */
export const ORGANIZATION_WEBHOOK_POLICY = Symbol('ORGANIZATION_WEBHOOK_POLICY');

export type OrganizationWebhookPolicy = WebhookDeliveryPolicy;

export const organizationWebhookPolicyProvider = {
  provide: ORGANIZATION_WEBHOOK_POLICY,
  useValue: DEFAULT_WEBHOOK_DELIVERY_POLICY,
};
