import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { AlertRouteRow } from '../routes/alert-routes.repository.js';
import {
  type AlertBundlesRepository,
  type BundleKind,
  type BundleMember,
  type NewBundle,
} from './alert-bundles.repository.js';

type BundlingRoute = Pick<AlertRouteRow, 'id' | 'bundle_window_seconds'>;

/**
 * One dispatch's view of its routes' bundles of one kind: which are open at `now` (read under
 * the routes' locks, so concurrent dispatches take turns), which it opens, and who joins them.
 * `save` writes what it learnt, in the dispatch's transaction.
 */
export class BundleBook {
  private readonly opened: NewBundle[] = [];
  private readonly joined: BundleMember[] = [];

  private constructor(
    private readonly projectId: string,
    private readonly kind: BundleKind,
    private readonly open: Map<string, string>,
    private readonly now: Date,
  ) {}

  /** Reads the open bundles of the routes that bundle; their rows must be locked already. */
  static async read(
    repository: AlertBundlesRepository,
    manager: EntityManager,
    projectId: string,
    kind: BundleKind,
    routes: ReadonlyArray<BundlingRoute | null>,
    now: Date,
  ): Promise<BundleBook> {
    const bundling = [...new Set(routes.flatMap((r) => (r && bundles(r) ? [r.id] : [])))];
    const open = await repository.openAt(manager, bundling, kind, now);
    return new BundleBook(projectId, kind, open, now);
  }

  /** Joins the route's open bundle and answers its id; null: none open, notify at once. */
  join(route: BundlingRoute, alertId: string): string | null {
    const bundleId = bundles(route) ? this.open.get(route.id) : undefined;
    if (!bundleId) return null;
    this.joined.push({ bundleId, alertId });
    return bundleId;
  }

  /** The alert notified at once: its route, if it bundles, opens a bundle it leads. */
  lead(route: BundlingRoute, alertId: string, firedEventId: string | null): string | null {
    if (!bundles(route)) return null;
    const id = randomUUID();
    this.opened.push({
      id,
      projectId: this.projectId,
      routeId: route.id,
      kind: this.kind,
      leadAlertId: alertId,
      leadFiredEventId: firedEventId,
      openedAt: this.now,
      closesAt: new Date(this.now.getTime() + route.bundle_window_seconds * 1000),
    });
    this.open.set(route.id, id);
    return id;
  }

  save(repository: AlertBundlesRepository, manager: EntityManager): Promise<void> {
    return repository.insert(manager, this.opened, this.joined, this.now);
  }
}

export function bundles(route: BundlingRoute): boolean {
  return route.bundle_window_seconds > 0;
}
