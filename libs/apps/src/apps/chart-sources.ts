import { isKubeApiError, type KubeClient, type KubeObject } from '@platform/kube';
import { ensureNamespace } from '../cluster/apps-cluster.js';
import { HelmRepositoryKind, PLATFORM_APPS_NAMESPACE } from '../cluster/layout.js';
import { APP_CHARTS, type AppKind, chartSourceName } from './app-kinds.js';

/** How often Flux looks for new chart versions. */
const REPOSITORY_INTERVAL = '1h';

type HelmRepository = KubeObject<{ url: string; type?: string; interval?: string }>;

/**
 * Makes sure the HelmRepository of a kind exists in the platform namespace as the table in
 * app-kinds.ts says (made on the first app of the kind; a changed table is applied by the next
 * create), so a cluster needs nothing prepared beyond Flux itself.
 */
export async function ensureChartSource(kube: KubeClient, kind: AppKind): Promise<void> {
  await ensureNamespace(kube, PLATFORM_APPS_NAMESPACE);
  const name = chartSourceName(kind);
  const wanted = APP_CHARTS[kind];
  const spec = {
    url: wanted.url,
    interval: REPOSITORY_INTERVAL,
    ...(wanted.type ? { type: wanted.type } : {}),
  };
  const existing = await kube.get<HelmRepository>(
    HelmRepositoryKind,
    PLATFORM_APPS_NAMESPACE,
    name,
  );
  if (!existing) {
    try {
      await kube.create<HelmRepository>(HelmRepositoryKind, {
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'HelmRepository',
        metadata: { name, namespace: PLATFORM_APPS_NAMESPACE },
        spec,
      });
    } catch (error) {
      // Made by a concurrent create of the same kind: that one is as good.
      if (!isKubeApiError(error, 409)) throw error;
    }
    return;
  }
  if (existing.spec?.url !== wanted.url || (existing.spec?.type ?? undefined) !== wanted.type) {
    await kube.mergePatch(HelmRepositoryKind, PLATFORM_APPS_NAMESPACE, name, {
      spec: { url: wanted.url, type: wanted.type ?? null },
    });
  }
}

/** `spec.chart` of a HelmRelease of the kind: its chart from the kind's HelmRepository. */
export function chartOf(kind: AppKind) {
  return {
    spec: {
      chart: APP_CHARTS[kind].chart,
      sourceRef: {
        kind: 'HelmRepository',
        name: chartSourceName(kind),
        namespace: PLATFORM_APPS_NAMESPACE,
      },
    },
  };
}
