import type { Severity } from '../severity.js';
import type { Alert } from './alerts.openapi.js';

/** The columns of an alert as stored, shown as they are. */
interface AlertColumns {
  id: string;
  project_id: string;
  fingerprint: string;
  status: 'firing' | 'resolved';
  severity: Severity;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  starts_at: Date;
  ends_at: Date | null;
  generator_url: string;
  last_received_at: Date;
  created_at: Date;
  updated_at: Date;
}

/** An alert row joined with its acknowledgement summary (see `ALERT_VIEW_SELECT`). */
export interface AlertViewRow extends AlertColumns {
  acknowledgement_count: number;
  acknowledged_at: Date | null;
  first_ack_account_id: string | null;
  first_ack_account_name: string | null;
  first_ack_contact_label: string | null;
}

/**
 * `acknowledged_by` never carries a bare account id or a phone number: an account shows as
 * `{id, name}`, an external phone contact as `{label}`. When the earliest acknowledger's
 * account has since been deleted (and it was no contact), it is null while `acknowledged`
 * stays true: the acknowledgement still counts, its author is gone.
 */
export function acknowledger(row: AlertViewRow): Alert['acknowledged_by'] {
  if (row.first_ack_account_id !== null && row.first_ack_account_name !== null)
    return { id: row.first_ack_account_id, name: row.first_ack_account_name };
  if (row.first_ack_contact_label !== null) return { label: row.first_ack_contact_label };
  return null;
}

/** The Alert resource of the spec, field for field. */
export function alertView(row: AlertViewRow): Alert {
  return {
    id: row.id,
    project_id: row.project_id,
    fingerprint: row.fingerprint,
    status: row.status,
    severity: row.severity,
    labels: row.labels,
    annotations: row.annotations,
    starts_at: row.starts_at,
    ends_at: row.ends_at,
    generator_url: row.generator_url,
    last_received_at: row.last_received_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    acknowledged: row.acknowledgement_count > 0,
    acknowledged_at: row.acknowledged_at,
    acknowledged_by: row.acknowledgement_count > 0 ? acknowledger(row) : null,
    acknowledgement_count: row.acknowledgement_count,
  };
}

/**
 * The columns of `AlertViewRow` for alerts aliased `a`; append `ALERT_VIEW_JOINS` after the
 * FROM item. Acknowledgements are summarized per alert through its (alert_id, created_at, id)
 * index, so a page of alerts costs one index probe pair per alert, not a scan.
 */
export const ALERT_VIEW_COLUMNS = `
  a.id, a.project_id, a.fingerprint, a.status, a.severity, a.labels, a.annotations,
  a.starts_at, a.ends_at, a.generator_url, a.last_received_at, a.created_at, a.updated_at,
  acks.n AS acknowledgement_count, acks.first_at AS acknowledged_at,
  first_ack.account_id AS first_ack_account_id, first_ack.account_name AS first_ack_account_name,
  first_ack.contact_label AS first_ack_contact_label`;

export const ALERT_VIEW_JOINS = `
  CROSS JOIN LATERAL (
    SELECT count(*)::int AS n, min(k.created_at) AS first_at
      FROM alert_acknowledgement k WHERE k.alert_id = a.id
  ) acks
  LEFT JOIN LATERAL (
    SELECT k.account_id, acc.name AS account_name, k.contact_label
      FROM alert_acknowledgement k
      LEFT JOIN account acc ON acc.id = k.account_id
     WHERE k.alert_id = a.id
     ORDER BY k.created_at, k.id
     LIMIT 1
  ) first_ack ON true`;
