import { Inject, Injectable, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { KubeCluster, UpstreamMetrics } from '@platform/cloud-core';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import type { KubeClient } from '@platform/kube';

/** The most one call to the garden cluster may take: rule 4's 10 s (tests shorten it). */
export const GARDEN_CALL_TIMEOUT_MS = Symbol('GARDEN_CALL_TIMEOUT_MS');

/**
 * The Gardener garden cluster at GARDEN_KUBECONFIG, reached with the operator runtime's client.
 * Unset, every /k8s route answers 503 `provider_not_configured`; set to a file that cannot be
 * read as a kubeconfig, the API does not start (a bad value names its variable at start-up,
 * not on the first customer request).
 */
@Injectable()
export class GardenCluster implements OnApplicationBootstrap {
  private readonly cluster: KubeCluster;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(GARDEN_CALL_TIMEOUT_MS) timeoutMs: number,
    @Optional() metrics?: UpstreamMetrics,
  ) {
    this.cluster = new KubeCluster(
      'garden',
      'GARDEN_KUBECONFIG',
      config.gardenKubeconfig,
      metrics,
      timeoutMs,
    );
  }

  onApplicationBootstrap(): void {
    if (!this.cluster.configured) return;
    try {
      void this.cluster.kube;
    } catch (error) {
      const what = error instanceof Error ? error.message : String(error);
      throw new Error(
        `GARDEN_KUBECONFIG: ${this.config.gardenKubeconfig} is not a usable kubeconfig: ${what}`,
      );
    }
  }

  /** Calls the garden cluster; failures answer by rule 4 (`service` labels the metrics). */
  run<T>(service: string, call: (kube: KubeClient) => Promise<T>): Promise<T> {
    return this.cluster.run(service, call);
  }
}
