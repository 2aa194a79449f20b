import { Inject, Injectable, Optional } from '@nestjs/common';
import { CoreKinds, KubeApiError, type KubeClient, type KubeObject } from '@platform/kube';
import { OutboundHttp, sendSignedWebhook } from '@platform/outbound';
import type { VerificationStatus, WebhookDeliveryStatus, WebhookSecretRef } from '../api/types.js';
import type { BackupRun } from './backup-runs.js';
import {
  type AttemptResult,
  DEFAULT_WEBHOOK_RETRY_POLICY,
  type WebhookRetryPolicy,
} from './webhook-deliveries.js';

export { type WebhookRetryPolicy } from './webhook-deliveries.js';

export type BackupWebhookEvent =
  'backup.succeeded' | 'backup.failed' | 'check.failed' | 'restoreTest.failed';

/**
 * What the success and failure webhooks receive: one POST per finished backup Job, and one to
 * the failure URL per failed check or restore test. `check` and `restoreTest` are the newest
 * results of those runs (null before the first), so a failure report says whether the
 * repository and its restores were still sound.
 */
export interface BackupWebhookPayload {
  event: BackupWebhookEvent;
  volumeBackup: { namespace: string; name: string; uid: string };
  job: string;
  snapshotId: string | null;
  volumeSize: string | null;
  startTime: string | null;
  completionTime: string | null;
  message: string;
  check: VerificationStatus | null;
  restoreTest: VerificationStatus | null;
}

export interface Verifications {
  check?: VerificationStatus;
  restoreTest?: VerificationStatus;
}

export function backupWebhookPayload(
  volumeBackup: { namespace: string; name: string; uid: string },
  run: BackupRun,
  outcome: { snapshotId?: string; volumeSize?: string; message: string },
  verifications: Verifications = {},
  event: BackupWebhookEvent = run.phase === 'Succeeded' ? 'backup.succeeded' : 'backup.failed',
): BackupWebhookPayload {
  return {
    event,
    volumeBackup,
    job: run.job,
    snapshotId: outcome.snapshotId ?? null,
    volumeSize: outcome.volumeSize ?? null,
    startTime: run.startTime ?? null,
    completionTime: run.completionTime ?? null,
    message: outcome.message,
    check: verifications.check ?? null,
    restoreTest: verifications.restoreTest ?? null,
  };
}

export const WEBHOOK_RETRY_POLICY = Symbol('WEBHOOK_RETRY_POLICY');

/** The key `webhooks.secretRef` reads when it names none. */
export const DEFAULT_WEBHOOK_SECRET_KEY = 'secret';

/** Standard Webhooks secrets: `whsec_` and the base64 of the key bytes. */
const WHSEC = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
const MIN_KEY_BYTES = 16;

/** Why deliveries cannot be signed: they are held, never sent unsigned. */
export interface SigningProblem {
  reason: string;
  message: string;
}

/**
 * The signing key from the Secret `ref` names in `namespace`, or why there is none. Only a
 * missing or malformed Secret is a problem to report; other API errors are thrown so the
 * reconcile is retried.
 */
export async function readWebhookSecret(
  client: KubeClient,
  namespace: string,
  ref: WebhookSecretRef | undefined,
): Promise<{ secret: string } | SigningProblem> {
  if (!ref?.name) {
    return {
      reason: 'WebhookSecretNotSet',
      message: 'webhooks.secretRef names no Secret: deliveries are held, never sent unsigned',
    };
  }
  const key = ref.key || DEFAULT_WEBHOOK_SECRET_KEY;
  const where = `Secret ${namespace}/${ref.name}`;
  let secret: KubeObject & { data?: Record<string, string> };
  try {
    const found = await client.get<KubeObject & { data?: Record<string, string> }>(
      CoreKinds.Secret,
      namespace,
      ref.name,
    );
    if (!found) return { reason: 'WebhookSecretMissing', message: `${where} does not exist` };
    secret = found;
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 403) {
      return {
        reason: 'WebhookSecretUnreadable',
        message: `${where} may not be read: ${error.message}`,
      };
    }
    throw error;
  }
  const encoded = secret.data?.[key];
  if (!encoded) return { reason: 'WebhookSecretMissing', message: `${where} has no key "${key}"` };
  const value = Buffer.from(encoded, 'base64').toString('utf8').trim();
  const bytes = WHSEC.test(value) ? Buffer.from(value.slice(6), 'base64').length : 0;
  if (bytes < MIN_KEY_BYTES) {
    return {
      reason: 'WebhookSecretInvalid',
      message: `${where} key "${key}" is not a Standard Webhooks secret (whsec_ and the base64 of at least ${MIN_KEY_BYTES} bytes)`,
    };
  }
  return { secret: value };
}

/**
 * One attempt of a delivery: a Standard Webhooks signed POST through the outbound client
 * (public addresses only unless OUTBOUND_ALLOW_PRIVATE_NETWORKS, no redirects). Retries are
 * not made here: the reconciler schedules them from the delivery's status, which survives a
 * restart where a timer would not.
 */
@Injectable()
export class BackupWebhookNotifier {
  readonly policy: WebhookRetryPolicy;

  constructor(
    private readonly outbound: OutboundHttp,
    @Optional() @Inject(WEBHOOK_RETRY_POLICY) policy?: Partial<WebhookRetryPolicy>,
  ) {
    this.policy = { ...DEFAULT_WEBHOOK_RETRY_POLICY, ...policy };
  }

  async attempt(delivery: WebhookDeliveryStatus, secret: string): Promise<AttemptResult> {
    const result = await sendSignedWebhook(this.outbound, {
      url: delivery.url,
      messageId: delivery.id,
      body: delivery.payload ?? '{}',
      // The receiver compares this with its own clock to refuse replays: wall-clock time.
      timestamp: new Date(),
      secrets: [secret],
      timeoutMs: this.policy.timeoutMs,
      userAgent: 'backup-operator',
    });
    return { ok: result.ok, refused: result.refused, status: result.status, error: result.error };
  }
}
