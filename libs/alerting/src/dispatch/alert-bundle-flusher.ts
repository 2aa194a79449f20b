import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock, StartupTasks } from '@platform/core';
import { NotifyService } from '@platform/notifications';
import { TargetResolver } from '@platform/oncall';
import { JobName, JobQueue, OnJob } from '@platform/queue';
import type { EntityManager } from 'typeorm';
import { type AlertRouteRow, AlertRoutesRepository } from '../routes/alert-routes.repository.js';
import {
  AlertBundlesRepository,
  type BundledAlert,
  type DueBundle,
} from './alert-bundles.repository.js';
import { bundleNotice } from './bundle-notices.js';
import { accountsOf, routeTarget } from './in-app-targets.js';

export const ALERT_BUNDLE_FLUSH_SCHEDULER_ID = 'alert-bundle-flush';
/** Bundles flushed per transaction; a larger backlog takes several. */
export const ALERT_BUNDLE_FLUSH_BATCH = 100;

/**
 * Closes storm control's bundles, every ESCALATION_SWEEP_INTERVAL_MS: each bundle whose window
 * ended by the clock is marked flushed and, when alerts joined it, its route's in-app target
 * (resolved now, as dispatch would) gets one notification listing them, in the same
 * transaction: a failure rolls the flush back and the next run sends it (the notification is
 * keyed by the bundle, so the in-app row is never doubled). Bundles are rows in PostgreSQL, so
 * a restarted worker flushes what the previous one opened; replicas skip each other's rows.
 */
@Injectable()
export class AlertBundleFlusher implements OnApplicationBootstrap {
  private readonly logger = new Logger('alert-bundle-flush');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly bundles: AlertBundlesRepository,
    private readonly routes: AlertRoutesRepository,
    private readonly targets: TargetResolver,
    private readonly notifications: NotifyService,
    private readonly jobs: JobQueue,
    private readonly startup: StartupTasks,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.startup.run(
      'alert bundle flush schedule',
      async () => {
        const queue = this.jobs.queue(this.jobs.queueOf(JobName.AlertBundleFlush));
        await this.jobs.withRedis(() =>
          queue.upsertJobScheduler(
            ALERT_BUNDLE_FLUSH_SCHEDULER_ID,
            { every: this.config.escalationSweepIntervalMs },
            {
              name: JobName.AlertBundleFlush,
              data: {},
              opts: { removeOnComplete: true, removeOnFail: 100 },
            },
          ),
        );
      },
      { againWhenBack: 'redis' },
    );
  }

  /** Answers how many bundles it flushed. */
  @OnJob(JobName.AlertBundleFlush)
  async flush(): Promise<number> {
    let total = 0;
    for (;;) {
      const flushed = await this.flushBatch();
      total += flushed;
      if (flushed < ALERT_BUNDLE_FLUSH_BATCH) break;
    }
    if (total > 0) this.logger.debug(`${total} alert bundle(s) closed`);
    return total;
  }

  private flushBatch(): Promise<number> {
    const now = this.clock.now();
    return this.bundles.transaction(async (manager) => {
      const due = await this.bundles.claimDue(manager, now, ALERT_BUNDLE_FLUSH_BATCH);
      const members = await this.bundles.membersOf(
        manager,
        due.map((b) => b.id),
      );
      const alertsOf = new Map<string, BundledAlert[]>();
      for (const member of members)
        alertsOf.set(member.bundle_id, [...(alertsOf.get(member.bundle_id) ?? []), member]);
      const joined = due.filter((bundle) => alertsOf.has(bundle.id));
      const routes = await this.routesOf(manager, joined);
      const reached = await this.targets.resolve(
        joined.map((bundle) => ({
          organizationId: bundle.organization_id,
          target: routeTarget(routes.get(bundle.route_id)!),
        })),
        now,
      );
      const requests = joined.flatMap((bundle, index) => {
        const recipients = accountsOf(reached[index]);
        if (recipients.length === 0) return [];
        const context = {
          organizationId: bundle.organization_id,
          projectId: bundle.project_id,
          route: routes.get(bundle.route_id)!,
          recipients,
        };
        const notice = { id: bundle.id, kind: bundle.kind, leadAlertId: bundle.lead_alert_id };
        return [bundleNotice(context, notice, alertsOf.get(bundle.id)!)];
      });
      await this.notifications.notifyEach(requests);
      return due.length;
    });
  }

  private async routesOf(
    manager: EntityManager,
    bundles: readonly DueBundle[],
  ): Promise<Map<string, AlertRouteRow>> {
    const routes = new Map<string, AlertRouteRow>();
    for (const projectId of new Set(bundles.map((b) => b.project_id)))
      for (const route of await this.routes.list(projectId, manager)) routes.set(route.id, route);
    return routes;
  }
}
