/**
 * What an in-app page is: a notification of this category (its event type too), keyed by the
 * page, with the page's alert in its payload. The step statement writes it for a page it creates
 * (RUN_STEPS) and a page job for a page delivered again (PageDeliveryProcessor): both take the
 * payload and the key from here, so a page reads the same whichever wrote it.
 */
export const PAGE_CATEGORY = 'alert_escalation';

const PAGE_KEY_PREFIX = 'escalation-page/';

/**
 * What a page's in-app notification and e-mail are: that page. A page delivered again (its
 * first delivery not recorded before a crash) finds its notification written and keeps it, and
 * sends its e-mail under the same Message-ID.
 */
export function pageKey(pageId: string): string {
  return `${PAGE_KEY_PREFIX}${pageId}`;
}

/** pageKey in SQL, of a page id expression. */
export function pageKeySql(pageId: string): string {
  return `'${PAGE_KEY_PREFIX}' || ${pageId}::text`;
}

/** SQL expressions of what a page's notification names (see pageNotificationPayload). */
export interface PagePayloadColumns {
  alertId: string;
  instanceId: string;
  stepIndex: string;
  severity: string;
  alertname: string;
  summary: string;
  projectId: string;
}

/** The payload of a page's in-app notification, in SQL, from the expressions in `c`. */
export function pageNotificationPayload(c: PagePayloadColumns): string {
  return `jsonb_build_object(
    'alert_id', ${c.alertId}, 'escalation_instance_id', ${c.instanceId},
    'step_index', ${c.stepIndex}, 'severity', ${c.severity}, 'alertname', ${c.alertname},
    'summary', ${c.summary}, 'project_id', ${c.projectId})`;
}
