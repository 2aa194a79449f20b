import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { alertingNotFound, alertingValidation } from '../alerting-exception.js';
import { AlertsRepository } from '../alerts/alerts.repository.js';
import { silenceView } from './suppression-views.js';
import { SuppressionRepository } from './suppression.repository.js';

/**
 * Silences of one alert: from the moment of creation until `ends_at`, the alert is stored and
 * timelined but notifies nobody. Expiring (DELETE) ends a silence at once and keeps it, with
 * its comment and author, in the alert's list as inactive history, as Alertmanager does;
 * expiring one that already ended changes nothing.
 */
@Injectable()
export class SilencesService {
  constructor(
    private readonly clock: Clock,
    private readonly alerts: AlertsRepository,
    private readonly suppression: SuppressionRepository,
  ) {}

  async create(
    projectId: string,
    alertId: string,
    body: { ends_at: string; comment: string },
    accountId: string,
  ) {
    await this.requireAlert(projectId, alertId);
    const now = this.clock.now();
    const endsAt = new Date(body.ends_at);
    if (!(endsAt.getTime() > now.getTime()))
      throw alertingValidation([{ field: 'ends_at', messages: ['ends_at must be in the future'] }]);
    const silence = await this.suppression.createSilence({
      projectId,
      alertId,
      endsAt,
      comment: body.comment.trim(),
      createdBy: accountId,
      at: now,
    });
    return silenceView(silence, now);
  }

  async list(projectId: string, alertId: string) {
    await this.requireAlert(projectId, alertId);
    const now = this.clock.now();
    return (await this.suppression.listSilences(projectId, alertId)).map((s) =>
      silenceView(s, now),
    );
  }

  async expire(projectId: string, alertId: string, id: string): Promise<void> {
    if (!(await this.suppression.expireSilence(projectId, alertId, id, this.clock.now())))
      throw alertingNotFound('Silence');
  }

  private async requireAlert(projectId: string, alertId: string): Promise<void> {
    if (!(await this.alerts.exists(projectId, alertId))) throw alertingNotFound('Alert');
  }
}
