import { Injectable, Logger } from '@nestjs/common';
import { type Alert, AlertBundlesRepository, AlertsRepository } from '@platform/alerting';
import { Clock } from '@platform/core';
import { escalationNotFound, linkSuperseded } from '../escalation-exception.js';
import { EscalationJobs } from '../engine/escalation-jobs.js';
import {
  type AcknowledgementRecord,
  AcknowledgementsRepository,
  type HaltedInstance,
} from './acknowledgements.repository.js';

export type AcknowledgeRequest = Omit<AcknowledgementRecord, 'projectId' | 'at'> & {
  /** null: the alert's own project (a signed link or a phone answer names no project). */
  projectId: string | null;
  /**
   * An answer to a page (signed link, call, SMS reply): it counts only while `instanceId` is
   * the alert's current escalation (CURRENT_INSTANCE), checked under the alert's lock, else
   * 410 `link_superseded` and nothing is recorded.
   */
  onlyCurrentInstance?: boolean;
};

/**
 * Acknowledgement from every channel: in-app, the signed e-mail link, a phone call answered
 * with 1 and an SMS reply. Acknowledging halts every active escalation instance of the alert
 * (in the same transaction as the acknowledgement) and schedules each one's re-escalation
 * when its chain has `re_escalation_after`. It is idempotent per acknowledger and channel
 * within one firing; the alert's status is never changed. Acknowledging the first alert of a
 * storm-control bundle (in its bundle's firing) acknowledges the alerts that joined the bundle
 * too, by the same acknowledger and channel.
 *
 * An answer to a page acknowledges only while the page's escalation is the alert's current one:
 * a page of an earlier firing must not take the incident that followed it.
 *
 * Un-acknowledging hard-deletes every acknowledgement of the alert. It neither resumes a
 * halted escalation nor cancels a re-escalation already scheduled.
 */
@Injectable()
export class AcknowledgementsService {
  private readonly logger = new Logger('acknowledgements');

  constructor(
    private readonly clock: Clock,
    private readonly repository: AcknowledgementsRepository,
    private readonly alerts: AlertsRepository,
    private readonly jobs: EscalationJobs,
    private readonly bundles: AlertBundlesRepository,
  ) {}

  /**
   * Answers the updated alert; 404 when the alert is not there (or not in `projectId`), 410
   * `link_superseded` when `onlyCurrentInstance` and the instance is no longer current.
   */
  async acknowledge({ onlyCurrentInstance, ...request }: AcknowledgeRequest): Promise<Alert> {
    const at = this.clock.now();
    const { view, halted } = await this.repository.transaction(async (manager) => {
      const alert = await this.repository.lockAlert(manager, request.alertId, request.projectId);
      if (!alert) throw escalationNotFound('Alert');
      if (
        onlyCurrentInstance &&
        !(await this.repository.isCurrentInstance(
          manager,
          request.alertId,
          request.instanceId ?? null,
        ))
      )
        throw linkSuperseded();
      await this.repository.record(manager, { ...request, projectId: alert.project_id, at });
      const halted = await this.repository.halt(manager, request.alertId, at);
      // The first alert of a bundle escalates for it: its acknowledgement covers the alerts
      // that joined (they have no escalation of their own; each is still acknowledged alone).
      await this.repository.recordEach(
        manager,
        { ...request, instanceId: null, projectId: alert.project_id, at },
        await this.bundles.ledBy(manager, request.alertId),
      );
      const view = await this.alerts.findView(alert.project_id, request.alertId, manager);
      return { view: view!, halted };
    });
    await this.scheduleReEscalations(halted);
    return view;
  }

  async unacknowledge(
    projectId: string,
    alertId: string,
    by: { id: string; name: string },
  ): Promise<Alert> {
    const at = this.clock.now();
    return this.repository.transaction(async (manager) => {
      if (!(await this.repository.lockAlert(manager, alertId, projectId)))
        throw escalationNotFound('Alert');
      const removed = await this.repository.clear(manager, alertId);
      if (removed > 0)
        await this.repository.recordUnacknowledged(manager, {
          projectId,
          alertId,
          by,
          removed,
          at,
        });
      return (await this.alerts.findView(projectId, alertId, manager))!;
    });
  }

  /** A lost enqueue is not lost work: the sweeper finds `re_escalate_at` due and enqueues it. */
  private async scheduleReEscalations(halted: readonly HaltedInstance[]): Promise<void> {
    const due = halted.filter((h) => h.re_escalate_at !== null);
    await this.jobs
      .reEscalations(
        due.map((h) => ({ instanceId: h.id, generation: h.generation, dueAt: h.re_escalate_at! })),
      )
      .catch((error: Error) =>
        this.logger.warn(`re-escalation not enqueued (the sweeper will): ${error.message}`),
      );
  }
}
