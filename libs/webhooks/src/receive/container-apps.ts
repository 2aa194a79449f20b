import { Inject, Injectable } from '@nestjs/common';
import { KubeCluster, providerUnavailable, UpstreamMetrics } from '@platform/cloud-core';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import { isKubeApiError, type KindRef, type KubeObject } from '@platform/kube';

/** A Flux HelmRelease: how an app lives in the apps cluster. */
export const HELM_RELEASE: KindRef = {
  group: 'helm.toolkit.fluxcd.io',
  version: 'v2',
  kind: 'HelmRelease',
  plural: 'helmreleases',
  namespaced: true,
};

/** The labels every app's HelmRelease carries. */
export const APP_LABELS = {
  organization: 'platform.neutral.com/organization-id',
  project: 'platform.neutral.com/project-id',
  kind: 'platform.neutral.com/app-kind',
  app: 'platform.neutral.com/app-id',
} as const;

export const CONTAINER_KIND = 'container';

/** The namespace of a project's apps: `app-` and the first 8 hex digits of its uuid. */
export const appNamespace = (projectId: string) => `app-${projectId.slice(0, 8)}`;

interface ContainerValues {
  values?: { image?: { repository?: unknown; tag?: unknown; digest?: unknown } };
}

/** A container app whose image a push matched. */
export interface ContainerApp {
  appId: string;
  projectId: string;
  namespace: string;
  name: string;
  /** The digest it is pinned to now, if any. */
  digest: string | null;
}

/** The apps cluster (APPS_KUBECONFIG), as this library reaches it. */
export const WEBHOOKS_APPS_CLUSTER = Symbol('WEBHOOKS_APPS_CLUSTER');

export const appsClusterProvider = {
  provide: WEBHOOKS_APPS_CLUSTER,
  inject: [APP_CONFIG, { token: UpstreamMetrics, optional: true }],
  useFactory: (config: AppConfig, metrics?: UpstreamMetrics) =>
    new KubeCluster('apps-cluster', 'APPS_KUBECONFIG', config.appsKubeconfig, metrics),
};

/**
 * Container apps of the apps cluster, for registry pushes: finds the apps of an organization
 * that run an image by repository and tag, and pins one to a digest by a merge patch of its
 * HelmRelease's `spec.values.image.digest`, which Flux rolls out. Failures answer by rule 4
 * (KubeCluster): unset kubeconfig 503 `provider_not_configured`, no answer 502
 * `provider_unavailable`.
 */
@Injectable()
export class ContainerApps {
  constructor(@Inject(WEBHOOKS_APPS_CLUSTER) private readonly cluster: KubeCluster) {}

  /**
   * The organization's container apps whose image is `repository` at `tag`, in one list call
   * across namespaces by label. Only releases in their project's own namespace count: the
   * labels and the namespace must agree before anything is patched.
   */
  async matching(organizationId: string, repository: string, tag: string): Promise<ContainerApp[]> {
    const selector = `${APP_LABELS.organization}=${organizationId},${APP_LABELS.kind}=${CONTAINER_KIND}`;
    const releases = await this.cluster.run('helmreleases', async (kube) => {
      try {
        return (
          await kube.list<KubeObject<ContainerValues>>(HELM_RELEASE, undefined, {
            labelSelector: selector,
          })
        ).items;
      } catch (error) {
        // The kind itself is missing: the cluster runs no Flux, which no retry of ours fixes.
        if (isKubeApiError(error, 404))
          throw providerUnavailable(this.cluster.provider, 'it serves no Flux HelmReleases');
        throw error;
      }
    });
    const apps: ContainerApp[] = [];
    for (const release of releases) {
      const labels = release.metadata.labels ?? {};
      const image = release.spec?.values?.image;
      const appId = labels[APP_LABELS.app];
      const projectId = labels[APP_LABELS.project];
      if (!appId || !projectId || release.metadata.namespace !== appNamespace(projectId)) continue;
      if (image?.repository !== repository || image?.tag !== tag) continue;
      apps.push({
        appId,
        projectId,
        namespace: release.metadata.namespace,
        name: release.metadata.name ?? '',
        digest: typeof image.digest === 'string' ? image.digest : null,
      });
    }
    return apps.sort(
      (a, b) => a.projectId.localeCompare(b.projectId) || a.name.localeCompare(b.name),
    );
  }

  /** Pins the app to `digest`; false when its HelmRelease is gone since it was listed. */
  async pin(app: ContainerApp, digest: string): Promise<boolean> {
    return this.cluster.run('helmreleases', async (kube) => {
      try {
        await kube.mergePatch(HELM_RELEASE, app.namespace, app.name, {
          spec: { values: { image: { digest } } },
        });
        return true;
      } catch (error) {
        if (isKubeApiError(error, 404)) return false;
        throw error;
      }
    });
  }
}
