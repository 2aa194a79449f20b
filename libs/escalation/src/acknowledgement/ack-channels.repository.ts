import { Injectable } from '@nestjs/common';
import type { PermissionOverrides, Role } from '@platform/identity';
import { DataSource } from 'typeorm';
import { CURRENT_INSTANCE } from './acknowledgements.repository.js';

/** The alert a signed link names, as its confirmation page shows it. */
export interface LinkedAlert {
  id: string;
  project_id: string;
  severity: string;
  summary: string;
  /** Whether the link's escalation instance is the alert's current one (CURRENT_INSTANCE). */
  instance_current: boolean;
}

/** An account's membership in an organization; both null when it holds none. */
export interface MembershipRights {
  role: Role | null;
  permissions: PermissionOverrides | null;
}

/** The account a signed link names, with its membership in the alert's organization. */
export interface LinkedAccount extends MembershipRights {
  name: string;
}

/**
 * A phone or SMS page being answered, with whom to attribute the acknowledgement to and the
 * account's membership in the project's organization (role and permissions null for a
 * contact).
 */
export interface AnsweredPage extends MembershipRights {
  id: string;
  project_id: string;
  alert_id: string;
  instance_id: string;
  account_id: string | null;
  /** null when the account was deleted */
  account_name: string | null;
  contact_label: string | null;
  /**
   * Whether the number paged is still the recipient's: the account's verified number, or the
   * number of a phone contact of that label on a roster of the project.
   */
  number_current: boolean;
}

const ANSWERED_PAGE = `
  SELECT p.id, p.project_id, p.alert_id, p.instance_id, p.account_id,
         ac.name AS account_name, p.contact_label, m.role, m.permissions,
         coalesce(CASE
           WHEN p.contact_label IS NOT NULL THEN EXISTS (
             SELECT 1 FROM on_call_roster_phone_contact c
               JOIN on_call_roster r ON r.id = c.roster_id
              WHERE r.project_id = p.project_id AND c.label = p.contact_label
                AND c.phone_number = p.phone_number)
           ELSE ac.phone_verified_at IS NOT NULL AND ac.phone_number = p.phone_number
         END, false) AS number_current
    FROM escalation_page p
    JOIN project pr ON pr.id = p.project_id
    LEFT JOIN account ac ON ac.id = p.account_id
    LEFT JOIN membership m ON m.account_id = p.account_id AND m.organization_id = pr.organization_id`;

@Injectable()
export class AckChannelsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The alert with its summary (the `summary` annotation, else the `alertname` label, else
   * the fingerprint) and whether `instanceId` is its current escalation; null when it was
   * deleted.
   */
  async linkedAlert(alertId: string, instanceId: string): Promise<LinkedAlert | null> {
    const rows: LinkedAlert[] = await this.dataSource.query(
      `SELECT a.id, a.project_id, a.severity,
              coalesce(nullif(a.annotations ->> 'summary', ''), nullif(a.labels ->> 'alertname', ''),
                       a.fingerprint) AS summary,
              coalesce((SELECT ${CURRENT_INSTANCE('a', 'i')} FROM escalation_instance i
                         WHERE i.id = $2 AND i.alert_id = a.id), false) AS instance_current
         FROM alert a
        WHERE a.id = $1`,
      [alertId, instanceId],
    );
    return rows[0] ?? null;
  }

  /**
   * The account with its membership in the organization of the alert's project (none when
   * the alert is gone); null when the account was deleted.
   */
  async linkedAccount(accountId: string, alertId: string): Promise<LinkedAccount | null> {
    const rows: LinkedAccount[] = await this.dataSource.query(
      `SELECT ac.name, m.role, m.permissions
         FROM account ac
         LEFT JOIN membership m ON m.account_id = ac.id AND m.organization_id =
           (SELECT pr.organization_id FROM alert al JOIN project pr ON pr.id = al.project_id
             WHERE al.id = $2)
        WHERE ac.id = $1`,
      [accountId, alertId],
    );
    return rows[0] ?? null;
  }

  /** A phone page by id; null when gone (with its alert). */
  async phonePage(pageId: string): Promise<AnsweredPage | null> {
    const rows: AnsweredPage[] = await this.dataSource.query(
      `${ANSWERED_PAGE} WHERE p.id = $1 AND p.channel = 'phone'`,
      [pageId],
    );
    return rows[0] ?? null;
  }

  /**
   * The latest SMS page texted to `phoneNumber` with `replyCode` that may still be answered:
   * its escalation is the alert's current one (CURRENT_INSTANCE), so a code of an earlier
   * firing never takes the incident that followed it.
   */
  async smsPage(phoneNumber: string, replyCode: string): Promise<AnsweredPage | null> {
    const rows: AnsweredPage[] = await this.dataSource.query(
      `${ANSWERED_PAGE}
        JOIN escalation_instance i ON i.id = p.instance_id AND i.project_id = p.project_id
        JOIN alert al ON al.id = p.alert_id AND al.project_id = p.project_id
       WHERE p.channel = 'sms' AND p.phone_number = $1 AND p.reply_code = $2
         AND ${CURRENT_INSTANCE('al', 'i')}
       ORDER BY p.created_at DESC, p.id DESC
       LIMIT 1`,
      [phoneNumber, replyCode],
    );
    return rows[0] ?? null;
  }
}
