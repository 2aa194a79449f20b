import { Inject, Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { OutboundHttp, UrlNotAllowedError } from '@platform/outbound';
import type { BackupRun } from './backup-runs.js';

/** What the success and failure webhooks receive, one POST per finished backup Job. */
export interface BackupWebhookPayload {
  event: 'backup.succeeded' | 'backup.failed';
  volumeBackup: { namespace: string; name: string; uid: string };
  job: string;
  snapshotId: string | null;
  volumeSize: string | null;
  startTime: string | null;
  completionTime: string | null;
  message: string;
}

export function backupWebhookPayload(
  volumeBackup: { namespace: string; name: string; uid: string },
  run: BackupRun,
  outcome: { snapshotId?: string; volumeSize?: string; message: string },
): BackupWebhookPayload {
  return {
    event: run.phase === 'Succeeded' ? 'backup.succeeded' : 'backup.failed',
    volumeBackup,
    job: run.job,
    snapshotId: outcome.snapshotId ?? null,
    volumeSize: outcome.volumeSize ?? null,
    startTime: run.startTime ?? null,
    completionTime: run.completionTime ?? null,
    message: outcome.message,
  };
}

export interface WebhookRetryPolicy {
  attempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
}

export const WEBHOOK_RETRY_POLICY = Symbol('WEBHOOK_RETRY_POLICY');

const DEFAULT_POLICY: WebhookRetryPolicy = {
  attempts: 5,
  initialDelayMs: 2_000,
  maxDelayMs: 60_000,
  timeoutMs: 10_000,
};

/**
 * Delivers backup webhooks in the background, so a slow or failing receiver never holds up
 * reconciling: each POST goes through the outbound client (public addresses only unless
 * OUTBOUND_ALLOW_PRIVATE_NETWORKS, no redirects, the answer left unread) and is retried with
 * capped exponential backoff on network errors and non-2xx answers. A refused URL is logged
 * and not retried. Deliveries still waiting at shutdown are dropped.
 */
@Injectable()
export class BackupWebhookNotifier implements OnApplicationShutdown {
  private readonly logger = new Logger('BackupWebhooks');
  private readonly policy: WebhookRetryPolicy;
  private readonly pending = new Set<Promise<void>>();
  private readonly stopping = new AbortController();

  constructor(
    private readonly outbound: OutboundHttp,
    @Optional() @Inject(WEBHOOK_RETRY_POLICY) policy?: Partial<WebhookRetryPolicy>,
  ) {
    this.policy = { ...DEFAULT_POLICY, ...policy };
  }

  send(url: string, payload: BackupWebhookPayload): void {
    const delivery = this.deliver(url, payload).finally(() => this.pending.delete(delivery));
    this.pending.add(delivery);
  }

  /** Resolves when every delivery started so far has ended (delivered or given up). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  onApplicationShutdown(): void {
    this.stopping.abort();
  }

  private async deliver(url: string, payload: BackupWebhookPayload): Promise<void> {
    const body = JSON.stringify(payload);
    const subject = `${payload.event} webhook for ${payload.volumeBackup.namespace}/${payload.volumeBackup.name} (job ${payload.job})`;
    let delay = this.policy.initialDelayMs;
    for (let attempt = 1; attempt <= this.policy.attempts; attempt++) {
      if (this.stopping.signal.aborted) return;
      const failure = await this.post(url, body);
      if (failure === undefined) return;
      if (failure instanceof UrlNotAllowedError) {
        this.logger.error(`${subject} not sent: ${failure.message}`);
        return;
      }
      if (attempt === this.policy.attempts) {
        this.logger.error(`${subject} not delivered after ${attempt} attempts: ${failure}`);
        return;
      }
      this.logger.warn(`${subject} attempt ${attempt} failed: ${failure}; retrying in ${delay} ms`);
      await this.sleep(delay);
      delay = Math.min(delay * 2, this.policy.maxDelayMs);
    }
  }

  /** Undefined on a 2xx answer, a refusal, or what else went wrong. */
  private async post(url: string, body: string): Promise<UrlNotAllowedError | string | undefined> {
    try {
      const response = await this.outbound.request({
        method: 'POST',
        url,
        timeoutMs: this.policy.timeoutMs,
        signal: this.stopping.signal,
        headers: { 'content-type': 'application/json', 'user-agent': 'backup-operator' },
        body,
        maxResponseBytes: 0,
      });
      return response.status >= 200 && response.status < 300
        ? undefined
        : `receiver answered ${response.status}`;
    } catch (error) {
      if (error instanceof UrlNotAllowedError) return error;
      const { code, message } = (error ?? {}) as { code?: string; message?: string };
      return code ?? message ?? String(error);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      const signal = this.stopping.signal;
      function done() {
        signal.removeEventListener('abort', done);
        clearTimeout(timer);
        resolve();
      }
      signal.addEventListener('abort', done);
    });
  }
}
