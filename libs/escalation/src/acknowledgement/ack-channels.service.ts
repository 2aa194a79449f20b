import { Inject, Injectable } from '@nestjs/common';
import { CapabilitiesService, capabilityNotEnabled, isEnabled } from '@platform/capabilities';
import { APP_CONFIG, type AppConfig, AppException, Clock } from '@platform/core';
import { escalationNotFound } from '../escalation-exception.js';
import {
  type AnsweredPage,
  AckChannelsRepository,
  type LinkedAlert,
} from './ack-channels.repository.js';
import { AcknowledgementsService } from './acknowledgements.service.js';
import type { Acknowledger } from './acknowledgements.repository.js';
import { type AckLinkClaims, verifyToken } from './signed-link.js';

/** What the signed link's confirmation page shows. */
export interface SignedLinkView {
  alert_id: string;
  account_id: string;
  escalation_instance_id: string;
  alert_summary: string;
  alert_severity: string;
}

/** How a phone or SMS answer ended, for the TwiML reply. */
export type AnswerOutcome = 'acknowledged' | 'declined' | 'unknown';

/**
 * Acknowledgement from outside a session: the signed e-mail link, a phone page answered with
 * 1 and an SMS reply carrying the page's code. Every one goes through
 * AcknowledgementsService, attributed to the account the page went to (or the phone
 * contact's label), and is refused while the alert's project lacks the alerts capability.
 */
@Injectable()
export class AckChannelsService {
  constructor(
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: AckChannelsRepository,
    private readonly acknowledgements: AcknowledgementsService,
    private readonly capabilities: CapabilitiesService,
  ) {}

  async showLink(token: string): Promise<SignedLinkView> {
    const { claims, alert } = await this.resolveLink(token);
    return {
      alert_id: alert.id,
      account_id: claims.u,
      escalation_instance_id: claims.i,
      alert_summary: alert.summary,
      alert_severity: alert.severity,
    };
  }

  async acknowledgeLink(token: string): Promise<{ acked: true; alert_id: string }> {
    const { claims, alert, accountName } = await this.resolveLink(token);
    await this.acknowledgements.acknowledge({
      projectId: null,
      alertId: alert.id,
      by: { kind: 'account', id: claims.u, name: accountName },
      channel: 'email',
      instanceId: alert.instance_exists ? claims.i : null,
    });
    return { acked: true, alert_id: alert.id };
  }

  /**
   * A digit pressed on the phone page the token names: 1 acknowledges, anything else does
   * not. The token is checked first (401 when forged or expired), whatever was pressed.
   */
  async answerCall(token: string, digits: string | undefined): Promise<AnswerOutcome> {
    const { p: pageId } = verifyToken(
      this.config.secretKey,
      'phone_ack',
      token,
      this.clock.now(),
      this.config.signedLinkTtlSeconds,
    );
    if (digits?.trim() !== '1') return 'declined';
    const page = await this.repository.phonePage(pageId);
    return page ? this.acknowledgePage(page, 'phone') : 'unknown';
  }

  /** An SMS reply: its text (trimmed) must be the reply code of a page texted to `from`. */
  async answerSms(
    from: string | undefined,
    body: string | undefined,
  ): Promise<Exclude<AnswerOutcome, 'declined'>> {
    const code = body?.trim() ?? '';
    if (!from || code === '') return 'unknown';
    const page = await this.repository.smsPage(from, code);
    return page ? this.acknowledgePage(page, 'sms') : 'unknown';
  }

  private async resolveLink(
    token: string,
  ): Promise<{ claims: AckLinkClaims; alert: LinkedAlert; accountName: string }> {
    const claims = verifyToken(
      this.config.secretKey,
      'ack_link',
      token,
      this.clock.now(),
      this.config.signedLinkTtlSeconds,
    );
    const [alert, accountName] = await Promise.all([
      this.repository.linkedAlert(claims.a, claims.i),
      this.repository.accountName(claims.u),
    ]);
    if (!alert) throw escalationNotFound('Alert');
    if (accountName === null) throw escalationNotFound('Account');
    await this.requireAlerts(alert.project_id);
    return { claims, alert, accountName };
  }

  private async acknowledgePage(
    page: AnsweredPage,
    via: 'phone' | 'sms',
  ): Promise<'acknowledged' | 'unknown'> {
    const by: Acknowledger | null =
      page.contact_label !== null
        ? { kind: 'contact', label: page.contact_label }
        : page.account_id !== null && page.account_name !== null
          ? { kind: 'account', id: page.account_id, name: page.account_name }
          : null;
    if (!by) return 'unknown';
    await this.requireAlerts(page.project_id);
    try {
      await this.acknowledgements.acknowledge({
        projectId: page.project_id,
        alertId: page.alert_id,
        by,
        channel: 'phone',
        ...(via === 'sms' ? { ledgerChannel: 'sms' as const } : {}),
        instanceId: page.instance_id,
      });
    } catch (error) {
      // The alert was deleted while the caller was answering: tell them, not the provider.
      if (error instanceof AppException && error.code === 'not_found') return 'unknown';
      throw error;
    }
    return 'acknowledged';
  }

  private async requireAlerts(projectId: string): Promise<void> {
    if (!isEnabled(await this.capabilities.available(projectId, 'alerts')))
      throw capabilityNotEnabled('alerts');
  }
}
