import type { NotifyRequest } from '@platform/notifications';
import type { AlertRouteRow } from '../routes/alert-routes.repository.js';
import type { Severity } from '../severity.js';

/** What a bundled notification tells of one alert. */
export interface NoticeAlert {
  id: string;
  fingerprint: string;
  severity: Severity;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

type NoticeRoute = Pick<AlertRouteRow, 'id' | 'name'>;

/** The alerts one e-mail lists; the in-app payload carries them all. */
export const LISTED_IN_EMAIL = 200;

const routeName = (route: NoticeRoute) => route.name || route.id;
const nameOf = (alert: NoticeAlert) => alert.labels.alertname ?? alert.fingerprint;

function listed(alert: NoticeAlert) {
  return {
    alert_id: alert.id,
    fingerprint: alert.fingerprint,
    alertname: alert.labels.alertname ?? null,
    severity: alert.severity,
    summary: alert.annotations.summary ?? null,
  };
}

function lines(alerts: readonly NoticeAlert[]): string[] {
  const shown = alerts.slice(0, LISTED_IN_EMAIL).map((alert) => {
    const summary = alert.annotations.summary;
    return `- [${alert.severity.toUpperCase()}] ${nameOf(alert)}${summary ? `: ${summary}` : ''} (${alert.fingerprint})`;
  });
  const more = alerts.length - shown.length;
  return more > 0 ? [...shown, `... and ${more} more`] : shown;
}

interface NoticeContext {
  organizationId: string;
  projectId: string;
  route: NoticeRoute;
  recipients: string[];
}

/**
 * The notification of a closed bundle: `N more alerts on route X` (firing; its first alert was
 * notified on its own) or `N alerts resolved on route X`, listing the alerts.
 */
export function bundleNotice(
  context: NoticeContext,
  bundle: { id: string; kind: 'firing' | 'resolved'; leadAlertId: string },
  alerts: readonly NoticeAlert[],
): NotifyRequest {
  const count = alerts.length;
  const noun = count === 1 ? 'alert' : 'alerts';
  const title =
    bundle.kind === 'firing'
      ? `${count} more ${noun} on route ${routeName(context.route)}`
      : `${count} ${noun} resolved on route ${routeName(context.route)}`;
  return {
    category: 'alert_escalation',
    eventType: bundle.kind === 'firing' ? 'alert_bundle' : 'alert_bundle_resolved',
    organizationId: context.organizationId,
    recipients: context.recipients,
    payload: {
      bundle_id: bundle.id,
      project_id: context.projectId,
      route_id: context.route.id,
      lead_alert_id: bundle.leadAlertId,
      count,
      alerts: alerts.map(listed),
    },
    email: { subject: title, text: [title, '', ...lines(alerts)].join('\n') },
    shortText: title,
    idempotencyKey: `alert-bundle/${bundle.id}`,
  };
}

/** A resolution notified at once: the first of its route's window. */
export function resolvedNotice(
  context: NoticeContext,
  alert: NoticeAlert,
  bundleId: string,
): NotifyRequest {
  const title = `[RESOLVED] ${nameOf(alert)}`;
  return {
    category: 'alert_escalation',
    eventType: 'alert_resolved',
    organizationId: context.organizationId,
    recipients: context.recipients,
    payload: { ...listed(alert), project_id: context.projectId, route_id: context.route.id },
    email: {
      subject: title,
      text: [title, '', `Route: ${routeName(context.route)}`, ...lines([alert])].join('\n'),
    },
    shortText: title,
    idempotencyKey: `alert-resolved/${bundleId}`,
  };
}
