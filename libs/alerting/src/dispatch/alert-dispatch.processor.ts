import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '@platform/core';
import { DATABASE_POOL_SIZE } from '@platform/database';
import { NotifyService } from '@platform/notifications';
import { TargetResolver } from '@platform/oncall';
import { JobName, type JobPayloads, OnJob } from '@platform/queue';
import pLimit from 'p-limit';
import type { EntityManager } from 'typeorm';
import { EndpointFanout } from '../endpoints/endpoint-fanout.service.js';
import { cooldownUntil, routableOf } from '../routes/alert-route-view.js';
import { type AlertRouteRow, AlertRoutesRepository } from '../routes/alert-routes.repository.js';
import { Router } from '../routes/routing.js';
import { SuppressionService } from '../suppression/suppression.service.js';
import {
  AlertEventKind,
  AlertEventsRepository,
  type NewAlertEvent,
} from '../timeline/alert-events.repository.js';
import {
  AlertDispatchRepository,
  type ClaimedAlert,
  type DispatchOutcome,
} from './alert-dispatch.repository.js';
import { AlertBundlesRepository } from './alert-bundles.repository.js';
import { BundleBook, bundles } from './bundle-book.js';
import { EscalationOpener } from './escalation-opener.js';
import { ResolutionBundler } from './resolution-bundler.js';
import { accountsOf, notifiedDetails, routeTarget } from './in-app-targets.js';

interface Notification {
  alert: ClaimedAlert;
  route: AlertRouteRow;
  recipients: string[];
  /** The bundle the alert joined: its people are notified when the bundle closes. */
  bundleId?: string;
}

/** What deciding each routed alert of one dispatch shares. */
interface Routing {
  now: Date;
  lastNotified: Map<string, Date | null>;
  recipientsOf: Map<string, string[]>;
  book: BundleBook;
  event: (alert: ClaimedAlert, kind: AlertEventKind, details: object) => void;
  notify: Notification[];
}

/**
 * Runs what an ingest set in motion, per job `{projectId, fired, resolved}`.
 *
 * Fired alerts (still firing when the job runs): each alert's current firing episode is
 * claimed once (a retried or duplicate job finds it claimed and does nothing), then, reading
 * the project's routes once, the first matching route wins and becomes `alert.route_id`
 * (null: none). Per alert, in this order: an active silence records `silenced` and notifies
 * nobody; an active maintenance window records `suppressed` `{reason: 'maintenance',
 * maintenance_window_id}`; the winning route's cooldown in progress records `suppressed`
 * `{reason: 'cooldown', route_id}`; otherwise the route notifies: its in-app target through
 * the notification center (category alert_escalation, event alert_firing), the `notified`
 * event `{route_id, target, recipients}`, `alert_firing` to its attached endpoints, and its
 * cooldown starts. Silences and maintenance windows are timelined even for alerts no route
 * takes; an alert no route takes records nothing else. Within one job, alerts are taken in
 * the order given, so under a cooldown the first one notifies and the rest are suppressed.
 *
 * Storm control, on a route with `bundle_window_seconds`: the alert that finds no open bundle
 * of the route notifies as above and opens one (BundleBook); alerts the route takes while it
 * is open join it ahead of the cooldown: their `notified` event names the `bundle_id` and the
 * endpoints get `alert_firing` at once, but the in-app target hears of them only when the
 * bundle closes (AlertBundleFlusher), and only the first alert opens an escalation, which
 * covers the bundle.
 *
 * Resolved alerts: their escalations are cancelled; the resolution of the current firing
 * episode is claimed once (`alert_dispatch.resolved_at`) and `alert_resolved` goes to the
 * endpoints attached to the route that notified it; a firing that notified nobody, or that no
 * dispatch claimed, resolves silently. On a bundling route people also hear of resolutions,
 * bundled the same way (ResolutionBundler).
 *
 * Delivery is at least once per firing episode and per resolution: each claim commits only
 * after the in-app notifications and endpoint deliveries are handed over, so a failure rolls
 * the claim back and the job's retry sends again (a page is never lost; a crash at the wrong
 * moment can repeat its e-mail and endpoint deliveries). The in-app notification is keyed by the
 * episode's fired event, so a retry keeps the one written. A job that finds the episode or its
 * resolution already claimed does nothing, so the dispatch sweep (AlertDispatchSweeper) may
 * enqueue what it finds unclaimed while the ingest's own job still runs.
 */
@Injectable()
export class AlertDispatchProcessor {
  private readonly logger = new Logger('alert-dispatch');

  constructor(
    private readonly clock: Clock,
    private readonly repository: AlertDispatchRepository,
    private readonly routes: AlertRoutesRepository,
    private readonly events: AlertEventsRepository,
    private readonly suppression: SuppressionService,
    private readonly notifications: NotifyService,
    private readonly fanout: EndpointFanout,
    private readonly escalations: EscalationOpener,
    private readonly targets: TargetResolver,
    private readonly bundles: AlertBundlesRepository,
    private readonly resolutionBundler: ResolutionBundler,
  ) {}

  /**
   * A dispatch holds a transaction (one pooled connection) while it hands over, and the
   * hand-over reads on connections of its own; were every pooled connection held so, none
   * would be left for those reads. Fewer than half of them are held at once in a process.
   */
  private readonly handOvers = pLimit(Math.max(1, Math.floor(DATABASE_POOL_SIZE / 2) - 1));

  @OnJob(JobName.AlertDispatch)
  async dispatch(job: JobPayloads[JobName.AlertDispatch]): Promise<void> {
    if (job.fired.length > 0) await this.fire(job.projectId, job.fired);
    if (job.resolved.length > 0) await this.resolve(job.projectId, job.resolved);
  }

  private async fire(projectId: string, alertIds: readonly string[]): Promise<void> {
    const now = this.clock.now();
    const organizationId = await this.repository.organizationOf(projectId);
    if (!organizationId) return;

    const notifications = await this.handOvers(() =>
      this.claimAndHandOver(organizationId, projectId, alertIds, now),
    );
    if (notifications.length > 0)
      this.logger.debug(`project ${projectId}: ${notifications.length} alert(s) notified`);
  }

  private claimAndHandOver(
    organizationId: string,
    projectId: string,
    alertIds: readonly string[],
    now: Date,
  ): Promise<Notification[]> {
    return this.repository.transaction(async (manager) => {
      const claimed = await this.repository.claimFiring(manager, projectId, alertIds, now);
      if (claimed.length === 0) return [];
      const order = new Map(alertIds.map((id, index) => [id, index]));
      claimed.sort((a, b) => order.get(a.id)! - order.get(b.id)!);

      const router = new Router((await this.routes.list(projectId, manager)).map(routableOf));
      const winners = new Map(claimed.map((alert) => [alert.id, router.route(alert)?.row ?? null]));
      const [suppressions, recipientsOf] = await Promise.all([
        this.suppression.evaluate(projectId, claimed, now),
        this.recipientsOf(organizationId, [...winners.values()], now),
      ]);
      // Cooldowns and bundles are state of the route: dispatches that share one take turns.
      const locked = [...new Set([...winners.values()])].filter(
        (r): r is AlertRouteRow => r !== null && (r.cooldown_seconds !== null || bundles(r)),
      );
      const lastNotified = await this.repository.lockRoutes(
        manager,
        locked.map((r) => r.id),
      );
      const book = await BundleBook.read(this.bundles, manager, projectId, 'firing', locked, now);

      const events: NewAlertEvent[] = [];
      const settled: Parameters<AlertDispatchRepository['settle']>[1][number][] = [];
      const notify: Notification[] = [];
      const event = (alert: ClaimedAlert, kind: AlertEventKind, details: object) =>
        events.push({ alertId: alert.id, projectId, kind, details: { ...details }, at: now });
      const routing: Routing = { now, lastNotified, recipientsOf, book, event, notify };
      for (const alert of claimed) {
        const route = winners.get(alert.id) ?? null;
        const suppression = suppressions.get(alert.id);
        let outcome: DispatchOutcome;
        if (suppression?.kind === 'silenced') {
          event(alert, AlertEventKind.Silenced, { silence_id: suppression.silenceId });
          outcome = 'silenced';
        } else if (suppression?.kind === 'maintenance') {
          event(alert, AlertEventKind.Suppressed, {
            reason: 'maintenance',
            maintenance_window_id: suppression.maintenanceWindowId,
          });
          outcome = 'suppressed';
        } else {
          outcome = route === null ? 'unrouted' : this.routed(alert, route, routing);
        }
        settled.push({
          alertId: alert.id,
          firedEventId: alert.fired_event_id,
          routeId: route?.id ?? null,
          outcome,
        });
      }
      // The hand-over needs none of the claim's writes, so both go at once; inside the claim's
      // transaction all the same: if either fails, the claim is not committed.
      const outcomes = await Promise.allSettled([
        this.recordClaim(manager, { settled, events, book, notify }, now),
        this.send(organizationId, projectId, notify),
      ]);
      for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
      return notify;
    });
  }

  /** The claim's own writes: outcomes, timeline events, bundles and the routes' last notice. */
  private async recordClaim(
    manager: EntityManager,
    claim: {
      settled: Parameters<AlertDispatchRepository['settle']>[1];
      events: NewAlertEvent[];
      book: BundleBook;
      notify: readonly Notification[];
    },
    now: Date,
  ): Promise<void> {
    await this.repository.settle(manager, claim.settled);
    await this.events.record(claim.events, manager);
    await claim.book.save(this.bundles, manager);
    const leads = claim.notify.filter((n) => n.bundleId === undefined);
    await this.repository.markNotified(manager, [...new Set(leads.map((n) => n.route.id))], now);
  }

  /**
   * The outcome of an alert its route takes (no silence or maintenance window): with a bundle
   * of the route open, it joins it (notified when the bundle closes); under the route's
   * cooldown it is suppressed; otherwise it notifies at once and opens the route's bundle.
   */
  private routed(alert: ClaimedAlert, route: AlertRouteRow, routing: Routing): DispatchOutcome {
    const { now, lastNotified, book, event } = routing;
    const recipients = routing.recipientsOf.get(route.id)!;
    const joined = book.join(route, alert.id);
    if (joined !== null) {
      event(alert, AlertEventKind.Notified, {
        ...notifiedDetails(route.id, route, recipients),
        bundle_id: joined,
      });
      routing.notify.push({ alert, route, recipients, bundleId: joined });
      return 'notified';
    }
    const last = lastNotified.has(route.id) ? lastNotified.get(route.id)! : route.last_notified_at;
    if (cooldownUntil({ cooldown_seconds: route.cooldown_seconds, last_notified_at: last }, now)) {
      event(alert, AlertEventKind.Suppressed, { reason: 'cooldown', route_id: route.id });
      return 'suppressed';
    }
    event(alert, AlertEventKind.Notified, notifiedDetails(route.id, route, recipients));
    routing.notify.push({ alert, route, recipients });
    book.lead(route, alert.id, alert.fired_event_id);
    if (lastNotified.has(route.id)) lastNotified.set(route.id, now);
    return 'notified';
  }

  /** Per winning route, the accounts its in-app target reaches at `at`. */
  private async recipientsOf(
    organizationId: string,
    winners: ReadonlyArray<AlertRouteRow | null>,
    at: Date,
  ): Promise<Map<string, string[]>> {
    const routes = [...new Map(winners.flatMap((r) => (r ? [[r.id, r] as const] : []))).values()];
    const reached = await this.targets.resolve(
      routes.map((route) => ({ organizationId, target: routeTarget(route) })),
      at,
    );
    return new Map(routes.map((route, index) => [route.id, accountsOf(reached[index])]));
  }

  private async send(
    organizationId: string,
    projectId: string,
    notifications: readonly Notification[],
  ): Promise<void> {
    // One notifyEach for the whole payload's alerts: their reads and writes are shared.
    await this.notifications.notifyEach(
      notifications
        .filter(({ recipients, bundleId }) => recipients.length > 0 && bundleId === undefined)
        .map(({ alert, route, recipients }) =>
          this.alertFiring(organizationId, projectId, alert, route, recipients),
        ),
    );
    await this.fanout.fanOut(
      projectId,
      'alert_firing',
      notifications
        .filter((n) => n.route.notification_endpoint_ids.length > 0)
        .map((n) => ({ alertId: n.alert.id, endpointIds: n.route.notification_endpoint_ids })),
    );
    // A bundle's first alert escalates for it (acknowledging it acknowledges the bundle).
    const openings = notifications
      .filter((n) => n.route.escalation_chain_id !== null && n.bundleId === undefined)
      .map((n) => ({
        projectId,
        alertId: n.alert.id,
        firedEventId: n.alert.fired_event_id,
        routeId: n.route.id,
        escalationChainId: n.route.escalation_chain_id!,
      }));
    if (openings.length > 0) await this.escalations.open(openings);
  }

  private async resolve(projectId: string, alertIds: readonly string[]): Promise<void> {
    // Idempotent, so not claimed: a repeated job cancels nothing twice.
    await this.escalations.resolved(projectId, alertIds);
    const now = this.clock.now();
    await this.handOvers(() =>
      this.repository.transaction(async (manager) => {
        const resolutions = await this.repository.claimResolutions(
          manager,
          projectId,
          alertIds,
          now,
        );
        // Inside the claim's transaction: if the fan-out fails, the claim is not committed.
        await this.fanout.fanOut(
          projectId,
          'alert_resolved',
          resolutions.filter((r) => r.endpointIds.length > 0),
        );
        await this.resolutionBundler.handOver(manager, projectId, resolutions, now);
      }),
    );
  }

  private alertFiring(
    organizationId: string,
    projectId: string,
    alert: ClaimedAlert,
    route: AlertRouteRow,
    recipients: string[],
  ): Parameters<NotifyService['notify']>[0] {
    const alertname = alert.labels.alertname ?? null;
    const summary = alert.annotations.summary ?? null;
    const title = `[${alert.severity.toUpperCase()}] ${alertname ?? alert.fingerprint}`;
    const lines = [
      title,
      '',
      ...(summary ? [summary, ''] : []),
      `Severity: ${alert.severity}`,
      `Fingerprint: ${alert.fingerprint}`,
      `Route: ${route.name || route.id}`,
      ...Object.entries(alert.labels)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, value]) => `  ${key}=${value}`),
    ];
    return {
      category: 'alert_escalation',
      eventType: 'alert_firing',
      organizationId,
      recipients,
      payload: {
        alert_id: alert.id,
        fingerprint: alert.fingerprint,
        alertname,
        severity: alert.severity,
        summary,
        project_id: projectId,
        route_id: route.id,
      },
      email: { subject: summary ? `${title}: ${summary}` : title, text: lines.join('\n') },
      shortText: summary ? `${title}: ${summary}` : title,
      // A retry after a failure past the notification (the claim rolled back) keeps it.
      ...(alert.fired_event_id ? { idempotencyKey: `alert-firing/${alert.fired_event_id}` } : {}),
    };
  }
}
