import { jest } from '@jest/globals';
import { NotifyService } from '@platform/notifications';
import { FakeTwilio } from '@platform/testing';
import { DataSource } from 'typeorm';
import {
  type PageDeliveryResult,
  PageDeliveryProcessor,
} from '../../libs/escalation/src/paging/page-delivery.processor.js';
import { alertsProject } from './alerting.js';
import { createMailingApiTestApp, type MailingTestApp } from './api-app.js';
import { addMember, createAccount, type TestAccount } from './identity.js';

export type PageChannel = 'in_app' | 'email' | 'phone' | 'sms';

export interface PageRow {
  status: string;
  reason: string | null;
  attempts: number;
  provider_ref: string | null;
  phone_number: string | null;
  finished_at: Date | null;
}

export const ADMIN_NUMBER = '+4915100000001';
export const CONTACT_NUMBER = '+4915100000099';

/**
 * An API test app with e-mail and a fake Twilio, an org admin (verified number ADMIN_NUMBER) and
 * a member in a project with alerting, and helpers writing escalation pages directly: the set-up
 * of the page delivery and page recovery tests.
 */
export class PagesFixture {
  private constructor(
    readonly t: MailingTestApp,
    readonly twilio: FakeTwilio,
    readonly admin: TestAccount,
    readonly member: TestAccount,
    readonly projectId: string,
  ) {}

  static async start(): Promise<PagesFixture> {
    const twilio = await FakeTwilio.start();
    const t = await createMailingApiTestApp({ config: { phone: twilio.config() } });
    const admin = await createAccount(t, t.sink, 'oncall@pages.example');
    const member = await addMember(t, t.sink, admin, 'dev@pages.example', 'developer');
    const projectId = await alertsProject(t, admin, 'payments');
    await t
      .get(DataSource)
      .query(
        "UPDATE account SET name = 'Olivia Oncall', phone_number = $2, phone_verified_at = now() WHERE id = $1",
        [admin.accountId, ADMIN_NUMBER],
      );
    return new PagesFixture(t, twilio, admin, member, projectId);
  }

  get db(): DataSource {
    return this.t.get(DataSource);
  }

  get processor(): PageDeliveryProcessor {
    return this.t.get(PageDeliveryProcessor);
  }

  async close(): Promise<void> {
    await this.t.close();
    await this.twilio.close();
  }

  /** An alert with an active escalation and one pending page of it. */
  async page(
    channel: PageChannel,
    recipient: { accountId: string } | { label: string; number: string },
    options: { replyCode?: string; state?: string; phoneNumber?: string | null } = {},
  ): Promise<{ pageId: string; alertId: string; instanceId: string }> {
    const alertId = await this.insertAlert();
    const instanceId = await this.insertInstance(alertId, options.state);
    const now = this.t.clock.now();
    const isAccount = 'accountId' in recipient;
    const [row] = await this.db.query(
      `WITH page AS (
         INSERT INTO escalation_page (instance_id, project_id, alert_id, generation, repeat_count,
           step_index, channel, account_id, contact_label, phone_number, reply_code, created_at)
         VALUES ($1, $2, $3, 0, 0, 1, $4, $5, $6, $7, $8, $9) RETURNING id, channel
       ), record AS (
         INSERT INTO delivery (id, source, channel, status, created_at, due_at, next_attempt_at)
         SELECT id, 'escalation_page', channel, 'pending', $9, $9, $9 FROM page
       )
       SELECT id FROM page`,
      [
        instanceId,
        this.projectId,
        alertId,
        channel,
        isAccount ? recipient.accountId : null,
        isAccount ? null : recipient.label,
        isAccount ? (options.phoneNumber ?? null) : recipient.number,
        options.replyCode ?? null,
        now,
      ],
    );
    return { pageId: row.id as string, alertId, instanceId };
  }

  async pageRow(pageId: string): Promise<PageRow> {
    const rows: PageRow[] = await this.db.query(
      `SELECT d.status, d.reason, d.attempts, d.provider_ref, p.phone_number, d.finished_at
         FROM escalation_page p JOIN delivery d ON d.id = p.id WHERE p.id = $1`,
      [pageId],
    );
    return rows[0];
  }

  /** Who holds the page's claim. */
  async claimOf(pageId: string): Promise<string | null> {
    const rows: Array<{ claimed_by: string | null }> = await this.db.query(
      'SELECT claimed_by FROM escalation_page WHERE id = $1',
      [pageId],
    );
    return rows[0].claimed_by;
  }

  /** Delivers one page as a job of its own (named `jobId`); answers its result. */
  async deliver(pageId: string, jobId?: string): Promise<PageDeliveryResult> {
    const [result] = await this.processor.deliver(
      { pageIds: [pageId] },
      jobId ? { id: jobId } : undefined,
    );
    return result;
  }

  /**
   * Holds the next notifyEach (an in-app page job writing its notification) until `release`,
   * then lets it write; `release` also puts notifyEach back.
   */
  holdNotifyEach(): { release: () => void } {
    const notifications = this.t.get(NotifyService);
    const notifyEach = notifications.notifyEach.bind(notifications);
    let open!: () => void;
    const held = new Promise<void>((resolve) => (open = resolve));
    const spy = jest.spyOn(notifications, 'notifyEach').mockImplementationOnce(async (requests) => {
      await held;
      return notifyEach(requests);
    });
    return {
      release: () => {
        open();
        spy.mockRestore();
      },
    };
  }

  private async insertAlert(alertname = 'DiskFull'): Promise<string> {
    const now = this.t.clock.now();
    const [row] = await this.db.query(
      `INSERT INTO alert (project_id, fingerprint, status, severity, labels, annotations, starts_at,
                          last_received_at, created_at, updated_at)
       VALUES ($1, $2, 'firing', 'critical', $3, $4, $5, $5, $5, $5) RETURNING id`,
      [
        this.projectId,
        `fp-${Math.random().toString(36).slice(2)}`,
        JSON.stringify({ alertname }),
        JSON.stringify({ summary: 'Disk /var is 97% full' }),
        now,
      ],
    );
    return row.id as string;
  }

  private async insertInstance(alertId: string, state = 'active'): Promise<string> {
    const now = this.t.clock.now();
    const snapshot = {
      id: alertId,
      name: 'Primary',
      re_escalation_after: null,
      repeats: 0,
      steps: [],
    };
    const [row] = await this.db.query(
      `INSERT INTO escalation_instance (project_id, alert_id, chain_snapshot, state, opened_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $5) RETURNING id`,
      [this.projectId, alertId, JSON.stringify(snapshot), state, now],
    );
    return row.id as string;
  }
}
