import { Inject, Injectable } from '@nestjs/common';
import { CapabilitiesService, capabilityNotEnabled, isEnabled } from '@platform/capabilities';
import { APP_CONFIG, type AppConfig, AppException, Clock } from '@platform/core';
import { allows, effectivePermissions } from '@platform/identity';
import {
  EscalationErrorCode,
  EscalationException,
  escalationNotFound,
  linkSuperseded,
} from '../escalation-exception.js';
import {
  type AnsweredPage,
  AckChannelsRepository,
  type LinkedAccount,
  type LinkedAlert,
  type MembershipRights,
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

/** Why an answer that arrived too late to count acknowledges nothing. */
const ANSWER_TOO_LATE = new Set<string>([
  EscalationErrorCode.NotFound,
  EscalationErrorCode.LinkSuperseded,
]);

/** Whether a membership may acknowledge alerts: `alerts:update`, as POST .../ack asks. */
function mayAcknowledge({ role, permissions }: MembershipRights): boolean {
  return role !== null && allows(effectivePermissions(role, permissions ?? {}), 'alerts', 'update');
}

/** How a phone or SMS answer ended, for the TwiML reply. */
export type AnswerOutcome = 'acknowledged' | 'declined' | 'unknown';

/**
 * Acknowledgement from outside a session: the signed e-mail link, a phone page answered with
 * 1 and an SMS reply carrying the page's code. Every one goes through
 * AcknowledgementsService, attributed to the account the page went to (or the phone
 * contact's label), and is refused while the alert's project lacks the alerts capability.
 *
 * An answer stands for whom the page went to, as things are when it arrives, and only for
 * the escalation that sent it:
 * - the account must still be a member of the project's organization whose permissions
 *   include `alerts:update`, as an in-app acknowledgement needs (a platform admin without a
 *   membership is no exception: the link was sent to a member); a phone or SMS answer must
 *   come from the number that is still the recipient's (the account's verified number, or a
 *   phone contact's on a roster of the project);
 * - the page's escalation instance must be the alert's current one (CURRENT_INSTANCE): the
 *   alert fires, in the episode that opened the instance, and the instance did not end with
 *   a resolution. A link of an earlier firing, or of an alert that resolved since, is 410
 *   `link_superseded` on GET and POST, even when it acknowledged that firing; within the
 *   firing a repeat is idempotent, and an instance already acknowledged (by anyone) or
 *   exhausted still takes the acknowledgement.
 * A link refused so is 403 `forbidden` or 410 and records nothing; a call or SMS reply is
 * told the page can no longer be acknowledged.
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
    const { claims, alert, account } = await this.resolveLink(token);
    await this.acknowledgements.acknowledge({
      projectId: null,
      alertId: alert.id,
      by: { kind: 'account', id: claims.u, name: account.name },
      channel: 'email',
      instanceId: claims.i,
      // Checked again under the alert's lock: the alert may have resolved or fired again since.
      onlyCurrentInstance: true,
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

  /**
   * The link's claims, alert and account, once it may be used: 401 (forged, expired), 404
   * (alert or account gone), 403 (no alerts capability; `forbidden`: no longer a member who may
   * acknowledge), 410 `link_superseded` (not the alert's current escalation), in that order.
   */
  private async resolveLink(
    token: string,
  ): Promise<{ claims: AckLinkClaims; alert: LinkedAlert; account: LinkedAccount }> {
    const claims = verifyToken(
      this.config.secretKey,
      'ack_link',
      token,
      this.clock.now(),
      this.config.signedLinkTtlSeconds,
    );
    const [alert, account] = await Promise.all([
      this.repository.linkedAlert(claims.a, claims.i),
      this.repository.linkedAccount(claims.u, claims.a),
    ]);
    if (!alert) throw escalationNotFound('Alert');
    if (!account) throw escalationNotFound('Account');
    await this.requireAlerts(alert.project_id);
    if (!mayAcknowledge(account))
      throw new EscalationException(
        EscalationErrorCode.Forbidden,
        "The link's account is no longer a member who may acknowledge alerts of this project",
      );
    if (!alert.instance_current) throw linkSuperseded();
    return { claims, alert, account };
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
    if (!page.number_current || (by.kind === 'account' && !mayAcknowledge(page))) return 'unknown';
    try {
      await this.acknowledgements.acknowledge({
        projectId: page.project_id,
        alertId: page.alert_id,
        by,
        channel: 'phone',
        ...(via === 'sms' ? { ledgerChannel: 'sms' as const } : {}),
        instanceId: page.instance_id,
        onlyCurrentInstance: true,
      });
    } catch (error) {
      // The alert was deleted, resolved or fired again while the caller was answering: tell
      // them, not the provider.
      if (error instanceof AppException && ANSWER_TOO_LATE.has(error.code)) return 'unknown';
      throw error;
    }
    return 'acknowledged';
  }

  private async requireAlerts(projectId: string): Promise<void> {
    if (!isEnabled(await this.capabilities.available(projectId, 'alerts')))
      throw capabilityNotEnabled('alerts');
  }
}
