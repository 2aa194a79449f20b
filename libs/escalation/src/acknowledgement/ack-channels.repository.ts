import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The alert a signed link names, as its confirmation page shows it. */
export interface LinkedAlert {
  id: string;
  project_id: string;
  severity: string;
  summary: string;
  /** Whether the escalation instance of the link still exists (it goes with its alert). */
  instance_exists: boolean;
}

/** A phone or SMS page being answered, with whom to attribute the acknowledgement to. */
export interface AnsweredPage {
  id: string;
  project_id: string;
  alert_id: string;
  instance_id: string;
  account_id: string | null;
  /** null when the account was deleted */
  account_name: string | null;
  contact_label: string | null;
}

const ANSWERED_PAGE = `
  SELECT p.id, p.project_id, p.alert_id, p.instance_id, p.account_id,
         ac.name AS account_name, p.contact_label
    FROM escalation_page p
    LEFT JOIN account ac ON ac.id = p.account_id`;

@Injectable()
export class AckChannelsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The alert with its summary (the `summary` annotation, else the `alertname` label, else
   * the fingerprint); null when it was deleted.
   */
  async linkedAlert(alertId: string, instanceId: string): Promise<LinkedAlert | null> {
    const rows: LinkedAlert[] = await this.dataSource.query(
      `SELECT a.id, a.project_id, a.severity,
              coalesce(nullif(a.annotations ->> 'summary', ''), nullif(a.labels ->> 'alertname', ''),
                       a.fingerprint) AS summary,
              EXISTS (SELECT 1 FROM escalation_instance i
                       WHERE i.id = $2 AND i.alert_id = a.id) AS instance_exists
         FROM alert a
        WHERE a.id = $1`,
      [alertId, instanceId],
    );
    return rows[0] ?? null;
  }

  async accountName(accountId: string): Promise<string | null> {
    const rows: Array<{ name: string }> = await this.dataSource.query(
      'SELECT name FROM account WHERE id = $1',
      [accountId],
    );
    return rows[0]?.name ?? null;
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
   * The latest SMS page texted to `phoneNumber` with `replyCode` that is still worth
   * acknowledging: its escalation is active, or its alert is still firing.
   */
  async smsPage(phoneNumber: string, replyCode: string): Promise<AnsweredPage | null> {
    const rows: AnsweredPage[] = await this.dataSource.query(
      `${ANSWERED_PAGE}
        JOIN escalation_instance i ON i.id = p.instance_id AND i.project_id = p.project_id
        JOIN alert al ON al.id = p.alert_id AND al.project_id = p.project_id
       WHERE p.channel = 'sms' AND p.phone_number = $1 AND p.reply_code = $2
         AND (i.state = 'active' OR al.status = 'firing')
       ORDER BY p.created_at DESC, p.id DESC
       LIMIT 1`,
      [phoneNumber, replyCode],
    );
    return rows[0] ?? null;
  }
}
