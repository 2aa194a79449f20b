import type { IngestResponseDto } from '../alerting.openapi.js';
import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '@platform/core';
import type { ApiToken } from '@platform/identity';
import { JobName, JobQueue } from '@platform/queue';
import type { EntityManager } from 'typeorm';
import { AlertingErrorCode, AlertingException } from '../alerting-exception.js';
import { DISPATCH_JOB_OPTIONS } from '../dispatch/dispatch-jobs.js';
import { AlertIngestRepository, type IngestChanges } from './alert-ingest.repository.js';
import { IngestSeverityMapsRepository } from './ingest-severity-maps.repository.js';
import {
  type IngestAlertError,
  parseAlerts,
  payloadAlerts,
  payloadStatus,
} from './alertmanager-payload.js';

/**
 * Alertmanager webhooks (payload version 4) into alerts:
 *
 * - the body needs a non-empty `alerts` array, else 422 `malformed_payload`; the top-level
 *   fields are optional (each alert carries what is stored; `version` is not checked, so
 *   compatible senders work) and the top-level `status` is the fallback of an alert without
 *   one;
 * - the severity label goes through the ingest token's severity mapping, when the token
 *   presented has one (see severity-mapping.ts);
 * - each alert is validated alone: a failure lands in `data.errors` as
 *   `{index, fingerprint?, code, message}` while the others are processed; when none is
 *   processed the answer is 502 listing every error;
 * - alerts sharing a fingerprint within one payload: the last one wins, as if delivered
 *   later; `processed` counts every valid alert of the payload, superseded ones included;
 * - a missing `startsAt` means the receipt time; `endsAt` absent or the zero value
 *   `0001-01-01T00:00:00Z` is stored as null, and so is any `endsAt` of a firing alert;
 * - the whole payload is one set-based statement (see the repository), then one
 *   `alerts.dispatch` job carries the alerts that began firing and those that resolved
 *   (none when nothing changed). Routing and notification happen in the worker. Once the
 *   statement committed the alerts are accepted: when the job cannot be enqueued (Redis
 *   down), the answer is still 200 and the worker's dispatch sweep enqueues it from the
 *   timeline (see AlertDispatchSweeper).
 */
@Injectable()
export class AlertIngestService {
  private readonly logger = new Logger('alert-ingest');

  constructor(
    private readonly clock: Clock,
    private readonly repository: AlertIngestRepository,
    private readonly jobs: JobQueue,
    private readonly severityMaps: IngestSeverityMapsRepository,
  ) {}

  /** `token`: the static token presented, whose severity mapping applies when it has one. */
  async ingest(
    projectId: string,
    body: unknown,
    token: ApiToken | null = null,
  ): Promise<IngestResponseDto> {
    const alerts = payloadAlerts(body);
    if (!alerts) {
      throw new AlertingException(
        AlertingErrorCode.MalformedPayload,
        'The payload needs a non-empty alerts array',
        { retryable: false },
      );
    }
    const mapping = token?.kind === 'ingest' ? await this.severityMaps.find(token.id) : null;
    const { valid, errors, accepted } = parseAlerts(alerts, payloadStatus(body), mapping);
    if (valid.length === 0) {
      throw new AlertingException(
        AlertingErrorCode.NothingProcessed,
        `None of the ${alerts.length} alerts could be processed`,
        {
          retryable: false,
          details: { processed: 0, errors },
          errors: errors.map((error) => ({
            code: error.code,
            message: `alerts[${error.index}]: ${error.message}`,
            status: 422,
            index: error.index,
            ...(error.fingerprint === undefined ? {} : { fingerprint: error.fingerprint }),
          })),
        },
      );
    }
    const changes = await this.repository.ingest(projectId, valid, this.clock.now(), randomUUID());
    await this.dispatch(projectId, changes);
    return { processed: accepted, errors };
  }

  /**
   * Alerts the platform raises or ends itself (test alerts), parsed and upserted exactly as a
   * webhook's alerts are, but inside the caller's transaction. Problems come back as they would
   * in `data.errors`. The caller hands the changes to `dispatch` after its transaction commits:
   * the worker must find the alerts written.
   */
  async ingestWithin(
    manager: EntityManager,
    projectId: string,
    alerts: readonly unknown[],
  ): Promise<{ changes: IngestChanges; errors: IngestAlertError[] }> {
    const { valid, errors } = parseAlerts(alerts);
    const changes =
      valid.length === 0
        ? { fired: [], resolved: [] }
        : await this.repository.ingest(projectId, valid, this.clock.now(), randomUUID(), manager);
    return { changes, errors };
  }

  /**
   * One `alerts.dispatch` job for the alerts that began firing and those that resolved (none
   * when nothing changed): routing and notification happen in the worker. Called after the
   * changes committed, so it never fails: an enqueue that fails, whatever the error, is
   * logged, and the dispatch sweep finds the changes in the timeline and enqueues them.
   */
  async dispatch(projectId: string, { fired, resolved }: IngestChanges): Promise<void> {
    if (fired.length === 0 && resolved.length === 0) return;
    try {
      await this.jobs.enqueue(
        JobName.AlertDispatch,
        { projectId, fired, resolved },
        DISPATCH_JOB_OPTIONS,
      );
    } catch (error) {
      this.logger.warn(
        `dispatch of ${fired.length} firing and ${resolved.length} resolved alert(s) in project ${projectId} not enqueued, left to the dispatch sweep: ${(error as Error).message}`,
      );
    }
  }
}
