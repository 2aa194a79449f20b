import { Injectable } from '@nestjs/common';
import { insertAlertEvents, type Severity } from '@platform/alerting';
import {
  type DeliveryRecordUpdate,
  OUTCOME_ROWS,
  outcomeParameters,
  recordDeliveryOutcomes,
} from '@platform/notifications';
import { DataSource } from 'typeorm';
import type { PageChannel } from '../chains/chain-snapshot.js';
import { pageNotificationPayload } from './page-notification.js';

export type PageStatus = 'pending' | 'sent' | 'failed' | 'skipped';

/** A page with what its delivery says and to whom: the alert, its project, the account. */
export interface PageToDeliver {
  id: string;
  instance_id: string;
  project_id: string;
  alert_id: string;
  step_index: number;
  channel: PageChannel;
  account_id: string | null;
  contact_label: string | null;
  phone_number: string | null;
  status: PageStatus;
  reply_code: string | null;
  attempts: number;
  due_at: Date;
  instance_state: 'active' | 'acknowledged' | 'resolved' | 'exhausted';
  project_name: string;
  organization_id: string;
  alert_status: 'firing' | 'resolved';
  severity: Severity;
  fingerprint: string;
  alertname: string | null;
  summary: string | null;
  /** null: the page names no account, or the account was deleted */
  account_login: string | null;
  account_name: string | null;
  account_phone_number: string | null;
  account_phone_verified: boolean;
  /** What an in-app page's notification names (pageNotificationPayload); null for the others. */
  notification_payload: Record<string, unknown> | null;
}

/** A page's outcome, recorded if the page is still claimed by `claimant` (see settleMany). */
export interface ClaimedSettlement {
  pageId: string;
  outcome: PageSettlement;
  claimant: string;
}

/** How a delivery ended (or, for `pending`, why the last attempt did not). */
export interface PageSettlement {
  status: PageStatus;
  reason: string | null;
  /** Whether an attempt was made (counts in `attempts`); a skip makes none. */
  attempted: boolean;
  providerSid?: string | null;
  /** The number actually dialled or texted, kept so an SMS reply finds its page. */
  phoneNumber?: string | null;
  /** When a page left pending is tried again (the sweeper leaves it alone until then). */
  retryAt?: Date | null;
  /** How long the attempt's send took. */
  durationMs?: number;
  at: Date;
}

/**
 * A claim older than this is a crashed delivery's: another may take the page. Longer than a
 * batch takes at worst (its sends time out well within it).
 */
export const CLAIM_LAPSE_MS = 5 * 60_000;

@Injectable()
export class PagesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * A page is the source of its delivery: status, reason, attempts, provider id, due and retry
   * times are its delivery record's (DeliveriesRepository, same id), written with the page in
   * the engine's statement and settled with the ledger and timeline in settleMany's.
   *
   * Takes the pending pages among `pageIds` for delivery by `claimant`, and answers them with what
   * their delivery needs. An e-mail, call or text is claimed first, so that two deliveries of it
   * (the engine's batch and the sweeper's retry) do not both send: a page claimed by another
   * delivery is not answered, unless the claim is `claimant`'s own (a retry of its job) or older
   * than CLAIM_LAPSE_MS (a crashed delivery's). An in-app page needs no claim, its notification's
   * idempotency key already makes a second delivery write and push nothing, and is not updated
   * here: a burst's in-app pages cost no write before their notifications. A page settled or
   * gone with its alert is not answered. One statement for the whole batch.
   */
  async claimMany(
    pageIds: readonly string[],
    claimant: string,
    now: Date,
  ): Promise<PageToDeliver[]> {
    // The batch's pages and their delivery records are looked up by key, page by page (the
    // OFFSET 0 keeps each lookup a subquery of its own): joined freely, the planner would start
    // from the deliveries it believes pending, and in a burst, before statistics catch up, it
    // believes that of one row where there are tens of thousands, probing the batch's ids for
    // each. The claim updates its pages by key too (an array the planner cannot size): joined to
    // the batch, a table believed small was read whole and hashed, for every batch.
    return this.dataSource.query(
      `WITH batch AS MATERIALIZED (
         SELECT p.*, d.status, d.attempts, d.due_at
           FROM unnest($1::uuid[]) AS x (id)
           CROSS JOIN LATERAL (SELECT * FROM escalation_page WHERE id = x.id OFFSET 0) p
           CROSS JOIN LATERAL (SELECT status, attempts, due_at FROM delivery
                                WHERE id = x.id OFFSET 0) d
          WHERE d.status = 'pending'
       ), claimed AS (
         UPDATE escalation_page p
            SET claimed_by = $2, claimed_at = $3
          WHERE p.id = ANY (ARRAY(SELECT id FROM batch WHERE channel <> 'in_app'))
            AND (p.claimed_by IS NULL OR p.claimed_by = $2 OR p.claimed_at <= $4)
          RETURNING p.id
       )
       SELECT b.id, b.instance_id, b.project_id, b.alert_id, b.step_index, b.channel,
              b.account_id, b.contact_label, b.phone_number, b.status, b.reply_code, b.attempts,
              b.due_at, i.state AS instance_state,
              pr.name AS project_name, pr.organization_id,
              al.status AS alert_status, al.severity, al.fingerprint,
              al.labels ->> 'alertname' AS alertname, al.annotations ->> 'summary' AS summary,
              ac.login AS account_login, ac.name AS account_name,
              ac.phone_number AS account_phone_number,
              coalesce(ac.phone_verified_at IS NOT NULL, false) AS account_phone_verified,
              CASE WHEN b.channel = 'in_app' THEN ${pageNotificationPayload({
                alertId: 'b.alert_id',
                instanceId: 'b.instance_id',
                stepIndex: 'b.step_index',
                severity: 'al.severity',
                alertname: "al.labels ->> 'alertname'",
                summary: "al.annotations ->> 'summary'",
                projectId: 'b.project_id',
              })} END AS notification_payload
         FROM batch b
         JOIN escalation_instance i ON i.id = b.instance_id AND i.project_id = b.project_id
         JOIN alert al ON al.id = b.alert_id AND al.project_id = b.project_id
         JOIN project pr ON pr.id = b.project_id
         LEFT JOIN account ac ON ac.id = b.account_id
        WHERE b.channel = 'in_app' OR b.id IN (SELECT id FROM claimed)`,
      [pageIds, claimant, now, new Date(now.getTime() - CLAIM_LAPSE_MS)],
    );
  }

  /**
   * Who holds claims taken at or before `claimedBefore` on pages written before `writtenBefore`
   * and still pending: the page jobs whose deliveries have not recorded their outcomes (see
   * releaseClaims). Deliveries run without a job (`direct-`) are left to the claim's lapse.
   */
  async staleClaimants(writtenBefore: Date, claimedBefore: Date, limit: number): Promise<string[]> {
    const rows: Array<{ claimed_by: string }> = await this.dataSource.query(
      `SELECT DISTINCT p.claimed_by
         FROM delivery d JOIN escalation_page p ON p.id = d.id
        WHERE d.source = 'escalation_page' AND d.status = 'pending' AND d.created_at <= $1
          AND p.claimed_at <= $2 AND p.claimed_by NOT LIKE 'direct-%'
        LIMIT $3`,
      [writtenBefore, claimedBefore, limit],
    );
    return rows.map((row) => row.claimed_by);
  }

  /**
   * Releases the claims `claimants` took at or before `claimedBefore` on pages written before
   * `writtenBefore` and still pending, so that another delivery takes them (the sweeper's, for
   * claims of jobs that ended without recording what they sent); answers how many were released.
   */
  async releaseClaims(
    claimants: readonly string[],
    writtenBefore: Date,
    claimedBefore: Date,
  ): Promise<number> {
    if (claimants.length === 0) return 0;
    const [{ n }]: Array<{ n: number }> = await this.dataSource.query(
      `WITH released AS (
         UPDATE escalation_page p SET claimed_by = NULL, claimed_at = NULL
           FROM delivery d
          WHERE d.id = p.id AND d.source = 'escalation_page' AND d.status = 'pending'
            AND d.created_at <= $2 AND p.claimed_by = ANY ($1::text[]) AND p.claimed_at <= $3
          RETURNING p.id
       )
       SELECT count(*)::int AS n FROM released`,
      [claimants, writtenBefore, claimedBefore],
    );
    return n;
  }

  /**
   * Records the outcome of an attempt on each page still pending and claimed by its settlement's
   * `claimant` (an in-app page: unclaimed); answers the ids recorded (a page settled meanwhile,
   * claimed by another delivery after this one's claim lapsed, or gone is not). A page left pending is
   * released for its retry; a page sent or failed keeps the claim of the delivery that settled
   * it, since nothing claims a settled page again: rewriting every page only to clear it was
   * about a fifth of a settle's time (2,000 in-app pages). A page settled as sent also
   * writes its ledger row (`called` for a phone call, else `notified`) and its `paged` timeline
   * event, in the same statement. A page named twice is recorded once, by its first outcome.
   */
  async settleMany(settlements: ReadonlyArray<ClaimedSettlement>): Promise<Set<string>> {
    if (settlements.length === 0) return new Set();
    const seen = new Set<string>();
    const first = settlements.filter(({ pageId }) => !seen.has(pageId) && seen.add(pageId));
    const records = first.map(({ pageId, outcome }) => pageRecord(pageId, outcome));
    // The delivery records first (only those still pending, and claimed by `claimant`), then the
    // pages they recorded: the claims of those left pending, the numbers dialled or texted, the
    // ledger rows and timeline events.
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `WITH outcome AS (${OUTCOME_ROWS}),
       ${recordDeliveryOutcomes(
         'settled',
         `outcome o JOIN unnest($1::uuid[], $13::text[]) AS c (id, claimant) ON c.id = o.id
          JOIN escalation_page p ON p.id = o.id
            AND (p.claimed_by = c.claimant OR (p.channel = 'in_app' AND p.claimed_by IS NULL))`,
         `p.project_id, p.alert_id, p.instance_id, p.account_id, p.contact_label, p.channel,
          p.generation, p.repeat_count, p.step_index`,
       )}, released AS (
         UPDATE escalation_page p
            SET phone_number = coalesce(x.phone_number, p.phone_number),
                claimed_by = CASE WHEN s.status = 'pending' THEN NULL ELSE p.claimed_by END,
                claimed_at = CASE WHEN s.status = 'pending' THEN NULL ELSE p.claimed_at END
           FROM settled s JOIN unnest($1::uuid[], $12::text[]) AS x (id, phone_number)
             ON x.id = s.id
          WHERE p.id = s.id
            -- Implied by the next condition, but on the batch alone: a page sent by e-mail or
            -- in-app (most of a burst) is not looked up at all.
            AND (s.status = 'pending' OR x.phone_number IS NOT NULL)
            AND ((s.status = 'pending' AND p.claimed_by IS NOT NULL) OR x.phone_number IS NOT NULL)
       ), ledger AS (
         INSERT INTO escalation_ledger
           (project_id, alert_id, instance_id, account_id, contact_label, action, channel, created_at)
         SELECT project_id, alert_id, instance_id, account_id, contact_label,
                CASE WHEN channel = 'phone' THEN 'called' ELSE 'notified' END, channel, at
           FROM settled WHERE status = 'sent'
       ), event AS (
         ${insertAlertEvents(`
         SELECT s.alert_id, s.project_id, 'paged',
                jsonb_build_object(
                  'escalation_instance_id', s.instance_id, 'generation', s.generation,
                  'repeat_count', s.repeat_count, 'step_index', s.step_index,
                  'channel', s.channel,
                  'recipient', CASE WHEN s.account_id IS NOT NULL
                                    THEN jsonb_build_object('account_id', s.account_id)
                                    ELSE jsonb_build_object('label', s.contact_label) END),
                s.at
           FROM settled s
          WHERE s.status = 'sent' AND EXISTS (SELECT 1 FROM alert a WHERE a.id = s.alert_id)`)}
       )
       SELECT id FROM settled`,
      [
        ...outcomeParameters(records),
        first.map((s) => s.outcome.phoneNumber ?? null),
        first.map((s) => s.claimant),
      ],
    );
    return new Set(rows.map((r) => r.id));
  }
}

/** The delivery record's update of a page's settlement. */
function pageRecord(pageId: string, outcome: PageSettlement): DeliveryRecordUpdate {
  const durationMs = outcome.durationMs ?? 0;
  return {
    deliveryId: pageId,
    status: outcome.status,
    reason: outcome.reason,
    attempted: outcome.attempted,
    providerRef: outcome.providerSid ?? null,
    startedAt: new Date(outcome.at.getTime() - durationMs),
    durationMs,
    nextAttemptAt: outcome.retryAt ?? null,
    at: outcome.at,
  };
}
