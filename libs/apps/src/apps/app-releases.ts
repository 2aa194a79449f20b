import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { formatLabelSelector, Informer, type KubeClient, type ObjectCache } from '@platform/kube';
import { AppsCluster } from '../cluster/apps-cluster.js';
import {
  appNamespace,
  type HelmRelease,
  HelmReleaseKind,
  PlatformLabels,
} from '../cluster/layout.js';

/** How long a write waits for the cache to show it before answering anyway. */
const SETTLE_TIMEOUT_MS = 2000;

/**
 * The platform's HelmReleases (those with an app id) as this API process knows them: one
 * list-and-watch of the whole cluster, started on first use and stopped with the process, so
 * a list of apps costs no call to the cluster at all, let alone one per app (statuses come
 * with the objects). Until the cache has synced (the first requests, or a cluster that cannot
 * be watched), reads are one LIST of the project's namespace, with rule 4's answers.
 */
@Injectable()
export class AppReleases implements OnModuleDestroy {
  private informer: Informer<HelmRelease> | undefined;
  private readonly waiters = new Set<{ check(): void; finish(): void }>();
  private readonly logger = new Logger('apps');

  constructor(private readonly cluster: AppsCluster) {}

  /** Whether reads come from the cache (tests wait for it). */
  get synced(): boolean {
    return this.informer?.hasSynced ?? false;
  }

  /** The project's apps, not counting those being deleted. */
  async ofProject(projectId: string): Promise<HelmRelease[]> {
    return this.read(projectId, { [PlatformLabels.project]: projectId });
  }

  /**
   * The project's app of this id; another project's is not found. `fresh` reads the cluster
   * rather than the cache: a change is computed against the object as it is now.
   */
  async find(
    projectId: string,
    id: string,
    options: { fresh?: boolean } = {},
  ): Promise<HelmRelease | undefined> {
    const labels = { [PlatformLabels.project]: projectId, [PlatformLabels.appId]: id };
    const [found] = await this.read(projectId, labels, options.fresh);
    return found;
  }

  /**
   * Waits (briefly) until the cache shows a write, so that a read right after it sees it: a
   * client that creates an app and lists at once finds it. Answers anyway after 2 s; the
   * write is done, only the cache is late.
   */
  async settled(done: (cache: ObjectCache<HelmRelease>) => boolean): Promise<void> {
    const informer = this.informer;
    if (!informer?.hasSynced || done(informer.store)) return;
    await new Promise<void>((resolve) => {
      const waiter = {
        check: () => {
          if (done(informer.store)) waiter.finish();
        },
        finish: () => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.finish, SETTLE_TIMEOUT_MS);
      this.waiters.add(waiter);
    });
  }

  async onModuleDestroy(): Promise<void> {
    for (const waiter of [...this.waiters]) waiter.finish();
    await this.informer?.stop();
  }

  private async read(
    projectId: string,
    labels: Record<string, string>,
    fresh = false,
  ): Promise<HelmRelease[]> {
    const informer = this.started();
    const namespace = appNamespace(projectId);
    const items =
      informer.hasSynced && !fresh
        ? informer.store.list(namespace, labels)
        : (
            await this.cluster.run('helmreleases', (kube) =>
              kube.list<HelmRelease>(HelmReleaseKind, namespace, {
                labelSelector: formatLabelSelector(labels),
              }),
            )
          ).items;
    return items.filter((release) => !release.metadata.deletionTimestamp);
  }

  private started(): Informer<HelmRelease> {
    if (this.informer) return this.informer;
    let kube: KubeClient;
    try {
      kube = this.cluster.kube;
    } catch (error) {
      throw this.cluster.failure(error);
    }
    const informer = new Informer<HelmRelease>(kube, HelmReleaseKind, {
      labelSelector: PlatformLabels.appId,
      logger: this.logger,
    });
    informer.onEvent(() => {
      for (const waiter of [...this.waiters]) waiter.check();
    });
    informer.start();
    this.informer = informer;
    return informer;
  }
}
