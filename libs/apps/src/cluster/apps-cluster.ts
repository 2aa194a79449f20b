import { Inject, Injectable } from '@nestjs/common';
import { CloudErrorCode, CloudException, KubeCluster, UpstreamMetrics } from '@platform/cloud-core';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import { isKubeApiError, type KubeClient, type KubeObject } from '@platform/kube';
import { NamespaceKind } from './layout.js';

/**
 * The apps cluster (APPS_KUBECONFIG): Flux serves the apps, the groupware operator the
 * workspaces. Every call answers its failures by rule 4; unset, 503 `provider_not_configured`.
 */
@Injectable()
export class AppsCluster extends KubeCluster {
  constructor(@Inject(APP_CONFIG) config: AppConfig, metrics: UpstreamMetrics) {
    super('apps-cluster', 'APPS_KUBECONFIG', config.appsKubeconfig, metrics);
  }
}

/**
 * Makes sure a namespace exists, created on first use with `labels`. `ownerLabel` names the
 * label that says whose it is: the namespace names take only 8 hex digits of a uuid, so two
 * tenants can meet on one name, and the second is refused (409) rather than let into the
 * first one's namespace. A namespace of ours without the label (made by hand) is adopted.
 */
export async function ensureNamespace(
  kube: KubeClient,
  name: string,
  labels: Record<string, string> = {},
  ownerLabel?: string,
): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const existing = await kube.get(NamespaceKind, undefined, name);
    if (!existing) {
      try {
        await kube.create<KubeObject>(NamespaceKind, {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name, labels },
        });
        return;
      } catch (error) {
        // Another request made it first: look at what it made.
        if (isKubeApiError(error) && error.status === 409) continue;
        throw error;
      }
    }
    if (!ownerLabel) return;
    const owner = existing.metadata.labels?.[ownerLabel];
    if (owner === labels[ownerLabel]) return;
    if (owner === undefined) {
      await kube.mergePatch(NamespaceKind, undefined, name, { metadata: { labels } });
      return;
    }
    throw new CloudException(
      CloudErrorCode.Conflict,
      `The namespace ${name} of the apps cluster belongs to another tenant`,
      { details: { provider: 'apps-cluster', namespace: name } },
    );
  }
  throw new CloudException(CloudErrorCode.Conflict, `The namespace ${name} keeps changing`);
}
