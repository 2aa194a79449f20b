import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { type AuditActor, AuditLog } from '@platform/audit';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import { organizationOf, type Principal } from '@platform/identity';
import { alertingNotFound, alertingValidation } from '../alerting-exception.js';
import type { Alert } from '../alerts/alerts.openapi.js';
import { AlertsRepository } from '../alerts/alerts.repository.js';
import { AlertIngestService } from '../ingest/alert-ingest.service.js';
import { AlertRoutesRepository } from '../routes/alert-routes.repository.js';
import { TestAlertJobs } from './test-alert-jobs.js';
import { testAlertLabels } from './test-alert-labels.js';
import { TestAlertThrottle } from './test-alert-throttle.js';
import type { CreateTestAlertBody } from './test-alerts.dto.js';
import { TestAlertsRepository } from './test-alerts.repository.js';

export const TEST_ALERT_ACTION = 'alerts.test';

/**
 * Test alerts are real alerts: ingested with a fresh `test-<uuid>` fingerprint through the
 * same parsing, upsert and dispatch as a webhook's, so routing, silences, maintenance windows,
 * cooldowns, notifications and escalation (phone calls included) treat them like any other.
 * The alert, its auto-resolution schedule and the `alerts.test` audit entry commit together;
 * the dispatch and the delayed resolution job are enqueued after the commit (the worker must
 * find the alert). Once committed the test alert exists: if Redis refuses either job, the
 * answer is still 201, and the worker's sweeps enqueue them (the dispatch sweep finds the
 * `fired` event, the escalation sweep's test-alert part the due resolution). The throttle
 * counts every request that passed authorization and validation.
 */
@Injectable()
export class TestAlertsService {
  private readonly logger = new Logger('test-alerts');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly throttle: TestAlertThrottle,
    private readonly routes: AlertRoutesRepository,
    private readonly alerts: AlertsRepository,
    private readonly ingestion: AlertIngestService,
    private readonly testAlerts: TestAlertsRepository,
    private readonly jobs: TestAlertJobs,
    private readonly audit: AuditLog,
  ) {}

  async create(principal: Principal, actor: AuditActor, body: CreateTestAlertBody): Promise<Alert> {
    const projectId = principal.projectId!;
    await this.throttle.take(projectId, actor.credential?.id ?? `account:${actor.accountId}`);
    const route = body.route_id ? await this.routes.find(projectId, body.route_id) : null;
    if (body.route_id && !route) throw alertingNotFound('Alert route');
    const fingerprint = `test-${randomUUID()}`;
    const labels = testAlertLabels(route?.matchers ?? [], body.labels ?? {});
    const summary = route ? `Test alert for route "${route.name || route.id}"` : 'Test alert';

    const created = await this.testAlerts.transaction(async (manager) => {
      const { changes, errors } = await this.ingestion.ingestWithin(manager, projectId, [
        { fingerprint, status: 'firing', labels, annotations: { summary } },
      ]);
      if (errors.length > 0)
        throw alertingValidation([{ field: 'labels', messages: errors.map((e) => e.message) }]);
      const alertId = changes.fired[0];
      const resolveAt = await this.testAlerts.schedule(
        manager,
        alertId,
        this.config.testAlertAutoResolveSeconds,
      );
      await this.audit.record(
        {
          actor,
          action: TEST_ALERT_ACTION,
          organizationId: organizationOf(principal),
          projectId,
          target: { type: 'alert', id: alertId },
          details: { fingerprint, route_id: route?.id ?? null, labels },
        },
        manager,
      );
      const alert = (await this.alerts.findView(projectId, alertId, manager))!;
      return { alert, changes, resolveAt };
    });
    await this.ingestion.dispatch(projectId, created.changes);
    try {
      await this.jobs.enqueue([{ alertId: created.alert.id, resolveAt: created.resolveAt }]);
    } catch (error) {
      this.logger.warn(
        `resolution of test alert ${created.alert.id} not enqueued, left to the sweep: ${(error as Error).message}`,
      );
    }
    return created.alert;
  }
}
