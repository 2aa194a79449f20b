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
import { type GardenerProject, GardenerKinds, type Shoot } from '../garden/gardener-kinds.js';
import {
  gardenNamespace,
  gardenProjectName,
  PROJECT_ID_LABEL,
} from '../tenancy/garden-projects.service.js';
import { CLUSTER_READY_WINDOW_MS, clusterTransition } from './cluster-transitions.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every call but the watch itself; the API's 10 s is for requests a client waits on. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * In the worker: `cluster.ready` to the organization's webhooks when a platform Shoot first
 * succeeds (clusterTransition), once across replicas and restarts. With GARDEN_KUBECONFIG unset
 * nothing is watched.
 *
 * One list-and-watch of Shoots across the garden, by the platform's project label: one stream
 * however many projects there are, where a watch per `garden-p*` namespace would hold one
 * connection per project and need the namespaces listed first (Projects cannot be listed
 * without cluster-wide rights either). Gardener serves Shoots with label selectors to any
 * identity with cluster-wide `list` and `watch` on `shoots`, which the platform's garden
 * service account is given for this (its rights in the project namespaces do not cover a
 * cluster-wide watch).
 *
 * A label is anyone's to write, so the organization is not read from the Shoot: the Shoot must
 * sit in the namespace of its project's Gardener Project, that Project must carry the platform
 * project's id, and the projects table names the organization.
 */
@Injectable()
export class ClusterEventsWatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('cluster-events');
  private watcher: TransitionWatcher<Shoot> | undefined;
  private kube: KubeClient | undefined;
  /** Project → organization, once its Gardener Project and row agreed; neither moves. */
  private readonly organizations = new Map<string, string>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: WebhookEvents,
    private readonly projects: ProjectsRepository,
    private readonly clock: Clock,
  ) {}

  /** The running watcher; undefined when GARDEN_KUBECONFIG is unset. */
  get watching(): TransitionWatcher<Shoot> | undefined {
    return this.watcher;
  }

  onApplicationBootstrap(): void {
    const path = this.config.gardenKubeconfig;
    if (!path) return;
    try {
      this.kube = KubeClient.fromEnvironment(path, { requestTimeoutMs: REQUEST_TIMEOUT_MS });
    } catch (error) {
      // The worker's jobs (alert notifications) go on; the API refuses such a value anyway.
      this.logger.error(
        `GARDEN_KUBECONFIG: ${path} is not a usable kubeconfig (${(error as Error).message}); cluster events are not watched`,
      );
      return;
    }
    this.watcher = new TransitionWatcher<Shoot>(
      this.kube,
      {
        source: 'shoot',
        kind: GardenerKinds.Shoot,
        labelSelector: PROJECT_ID_LABEL,
        transitionOf: (shoot) => clusterTransition(shoot, this.clock.now()),
        organizationOf: (shoot) => this.organizationOf(shoot),
      },
      this.events,
      this.clock,
      { catchUpMs: CLUSTER_READY_WINDOW_MS, logger: this.logger },
    );
    this.watcher.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.watcher?.stop();
  }

  private async organizationOf(shoot: Shoot): Promise<string | null> {
    const projectId = shoot.metadata.labels?.[PROJECT_ID_LABEL] ?? '';
    const { namespace } = shoot.metadata;
    const where = `${namespace}/${shoot.metadata.name}`;
    const name = gardenProjectName(projectId);
    if (!UUID.test(projectId) || namespace !== gardenNamespace(name)) {
      this.logger.warn(`Shoot ${where} is outside its project's namespace: not told`);
      return null;
    }
    const known = this.organizations.get(projectId);
    if (known) return known;
    const project = await this.kube!.get<GardenerProject>(GardenerKinds.Project, undefined, name);
    const projectNamespace = project?.spec?.namespace ?? gardenNamespace(name);
    if (
      project?.metadata.labels?.[PROJECT_ID_LABEL] !== projectId ||
      projectNamespace !== namespace
    ) {
      this.logger.warn(`Shoot ${where} is not in the Gardener project of its project: not told`);
      return null;
    }
    const organizationId = (await this.projects.findById(projectId))?.organizationId;
    if (!organizationId) {
      this.logger.warn(`Shoot ${where} names a project the platform does not have: not told`);
      return null;
    }
    this.organizations.set(projectId, organizationId);
    return organizationId;
  }
}
