import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { JobName, type JobPayloads, OnJob } from '@platform/queue';
import type { IngestChanges } from '../ingest/alert-ingest.repository.js';
import { AlertIngestService } from '../ingest/alert-ingest.service.js';
import { type TestAlertOutcome, TestAlertsRepository } from './test-alerts.repository.js';

/** What a job found: `not_due` by the clock, `settled` by an earlier job, or what it did. */
export type TestAlertResolveResult = TestAlertOutcome | 'not_due' | 'settled';

/**
 * Auto-resolution of a test alert, once per test alert. The clock decides, not the job's
 * timer: a job that arrives before `resolveAt` does nothing (the sweep enqueues it again when
 * due). When due, in one transaction holding the test alert and its alert: if the alert still
 * fires in the episode the test started, it is resolved through ingest, as a resolved re-post
 * of its fingerprint would be (resolved event, then after the commit the dispatch that cancels
 * escalations and fans `alert_resolved` out, or, if Redis refuses it, the dispatch sweep's
 * job); if it was resolved sooner, or resolved and fired
 * again since, nothing changes. Either way the test alert is settled, so a repeated job finds
 * nothing to do.
 */
@Injectable()
export class TestAlertResolveProcessor {
  constructor(
    private readonly clock: Clock,
    private readonly testAlerts: TestAlertsRepository,
    private readonly ingestion: AlertIngestService,
  ) {}

  @OnJob(JobName.TestAlertResolve)
  async resolve(job: JobPayloads[JobName.TestAlertResolve]): Promise<TestAlertResolveResult> {
    const now = this.clock.now();
    if (now.getTime() < new Date(job.resolveAt).getTime()) return 'not_due';
    const result = await this.testAlerts.transaction(async (manager) => {
      const testAlert = await this.testAlerts.lockUnsettled(manager, job.alertId);
      if (!testAlert) return 'settled' as const;
      if (testAlert.resolve_at.getTime() > now.getTime()) return 'not_due' as const;
      let changes: IngestChanges | null = null;
      if (testAlert.status === 'firing' && testAlert.same_episode) {
        const ingested = await this.ingestion.ingestWithin(manager, testAlert.project_id, [
          {
            fingerprint: testAlert.fingerprint,
            status: 'resolved',
            labels: testAlert.labels,
            annotations: testAlert.annotations,
            generatorURL: testAlert.generator_url,
          },
        ]);
        // Stored alerts passed the same parsing when they were written.
        if (ingested.errors.length > 0)
          throw new Error(`test alert ${testAlert.alert_id}: ${ingested.errors[0].message}`);
        changes = ingested.changes;
      }
      const outcome: TestAlertOutcome = changes ? 'resolved' : 'already_resolved';
      await this.testAlerts.settle(manager, testAlert.alert_id, now, outcome);
      return { projectId: testAlert.project_id, changes, outcome };
    });
    if (typeof result === 'string') return result;
    if (result.changes) await this.ingestion.dispatch(result.projectId, result.changes);
    return result.outcome;
  }
}
