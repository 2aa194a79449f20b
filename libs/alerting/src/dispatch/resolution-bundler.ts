import { Injectable } from '@nestjs/common';
import { NotifyService } from '@platform/notifications';
import { TargetResolver } from '@platform/oncall';
import type { EntityManager } from 'typeorm';
import { AlertRoutesRepository } from '../routes/alert-routes.repository.js';
import { AlertBundlesRepository } from './alert-bundles.repository.js';
import { AlertDispatchRepository, type ClaimedResolution } from './alert-dispatch.repository.js';
import { BundleBook, bundles } from './bundle-book.js';
import { resolvedNotice } from './bundle-notices.js';
import { accountsOf, routeTarget } from './in-app-targets.js';

/**
 * Storm control of resolutions, on routes with a bundle window (without one, a resolution
 * tells people nothing, as the spec has it): the resolution that finds no open resolution
 * bundle on its route notifies the route's in-app target at once and opens one; those that
 * follow within the window join it and are told together ("N alerts resolved") when the
 * bundle closes (AlertBundleFlusher).
 */
@Injectable()
export class ResolutionBundler {
  constructor(
    private readonly repository: AlertDispatchRepository,
    private readonly routes: AlertRoutesRepository,
    private readonly bundles: AlertBundlesRepository,
    private readonly targets: TargetResolver,
    private readonly notifications: NotifyService,
  ) {}

  /** In the resolution claim's transaction: a failure rolls the claim back. */
  async handOver(
    manager: EntityManager,
    projectId: string,
    resolutions: readonly ClaimedResolution[],
    now: Date,
  ): Promise<void> {
    // Most routes do not bundle: their resolutions cost nothing more here.
    const routeIds = new Set(resolutions.filter((r) => r.bundling).map((r) => r.routeId));
    if (routeIds.size === 0) return;
    const routes = (await this.routes.list(projectId, manager)).filter(
      (route) => routeIds.has(route.id) && bundles(route),
    );
    if (routes.length === 0) return;
    const organizationId = await this.repository.organizationOf(projectId);
    if (!organizationId) return;
    await this.repository.lockRoutes(
      manager,
      routes.map((r) => r.id),
    );
    const book = await BundleBook.read(this.bundles, manager, projectId, 'resolved', routes, now);
    const reached = await this.targets.resolve(
      routes.map((route) => ({ organizationId, target: routeTarget(route) })),
      now,
    );
    const byId = new Map(routes.map((route, index) => [route.id, { route, index }]));
    const requests = resolutions.flatMap((resolution) => {
      const bundling = byId.get(resolution.routeId);
      if (!bundling || book.join(bundling.route, resolution.alertId) !== null) return [];
      const bundleId = book.lead(bundling.route, resolution.alertId, null)!;
      const recipients = accountsOf(reached[bundling.index]);
      if (recipients.length === 0) return [];
      const context = { organizationId, projectId, route: bundling.route, recipients };
      return [resolvedNotice(context, resolution.alert, bundleId)];
    });
    await book.save(this.bundles, manager);
    await this.notifications.notifyEach(requests);
  }
}
