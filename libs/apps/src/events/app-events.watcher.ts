import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { ProjectsRepository } from '@platform/identity';
import { KubeClient } from '@platform/kube';
import { TransitionWatcher, WebhookEvents } from '@platform/webhooks';
import {
  appNamespace,
  type HelmRelease,
  HelmReleaseKind,
  PlatformLabels,
} from '../cluster/layout.js';
import { appTransition } from './app-transitions.js';

/** An app's deploy or failure found done at start-up is told when at most this old. */
export const APP_EVENTS_CATCH_UP_MS = 60 * 60_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every call but the watch itself; the API's 10 s is for requests a client waits on. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * In the worker: `app.deployed` and `app.failed` to the organization's webhooks as Flux
 * settles the platform's HelmReleases (appTransition), each once across replicas and restarts.
 * One list-and-watch of the apps cluster's HelmReleases that carry the organization and app
 * labels; with APPS_KUBECONFIG unset nothing is watched. The organization is the label's, once
 * the release sits in its project's namespace and the project belongs to that organization: a
 * release labelled by hand for someone else's project tells no one.
 */
@Injectable()
export class AppEventsWatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('app-events');
  private watcher: TransitionWatcher<HelmRelease> | undefined;
  /** Project → organization, as the projects table says; a project never moves. */
  private readonly organizations = new Map<string, string>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: WebhookEvents,
    private readonly projects: ProjectsRepository,
    private readonly clock: Clock,
  ) {}

  /** The running watcher; undefined when APPS_KUBECONFIG is unset. */
  get watching(): TransitionWatcher<HelmRelease> | undefined {
    return this.watcher;
  }

  onApplicationBootstrap(): void {
    const path = this.config.appsKubeconfig;
    if (!path) return;
    let kube: KubeClient;
    try {
      kube = KubeClient.fromEnvironment(path, { requestTimeoutMs: REQUEST_TIMEOUT_MS });
    } catch (error) {
      // The worker's jobs (alert notifications) go on; the API refuses such a value anyway.
      this.logger.error(
        `APPS_KUBECONFIG: ${path} is not a usable kubeconfig (${(error as Error).message}); app events are not watched`,
      );
      return;
    }
    this.watcher = new TransitionWatcher<HelmRelease>(
      kube,
      {
        source: 'helmrelease',
        kind: HelmReleaseKind,
        labelSelector: `${PlatformLabels.organization},${PlatformLabels.appId}`,
        transitionOf: appTransition,
        organizationOf: (release) => this.organizationOf(release),
      },
      this.events,
      this.clock,
      { catchUpMs: APP_EVENTS_CATCH_UP_MS, logger: this.logger },
    );
    this.watcher.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.watcher?.stop();
  }

  private async organizationOf(release: HelmRelease): Promise<string | null> {
    const labels = release.metadata.labels ?? {};
    const organizationId = labels[PlatformLabels.organization];
    const projectId = labels[PlatformLabels.project];
    const where = `${release.metadata.namespace}/${release.metadata.name}`;
    if (
      !UUID.test(projectId ?? '') ||
      !UUID.test(organizationId ?? '') ||
      release.metadata.namespace !== appNamespace(projectId)
    ) {
      this.logger.warn(`HelmRelease ${where} is outside its project's namespace: not told`);
      return null;
    }
    let owner = this.organizations.get(projectId);
    if (!owner) {
      owner = (await this.projects.findById(projectId))?.organizationId;
      if (owner) this.organizations.set(projectId, owner);
    }
    if (owner !== organizationId) {
      this.logger.warn(`HelmRelease ${where} names a project of another organization: not told`);
      return null;
    }
    return owner;
  }
}
