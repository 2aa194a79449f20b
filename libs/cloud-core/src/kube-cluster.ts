import { isKubeApiError, KubeClient } from '@platform/kube';
import type { AppException } from '@platform/core';
import {
  CloudErrorCode,
  CloudException,
  providerAuthFailed,
  providerNotConfigured,
  providerUnavailable,
} from './upstream-errors.js';
import { UPSTREAM_TIMEOUT_MS } from './upstream-http.js';
import type { UpstreamMetrics } from './upstream-metrics.js';

/**
 * A Kubernetes cluster the API is a front of (the Gardener garden cluster, the apps cluster),
 * reached with the operator runtime's client from the kubeconfig file a variable names. Every
 * call maps its failure by rule 4, like an OpenStack call: the API server's 404 and 409 pass
 * through, 400/422 are `upstream_rejected`, 401/403 `provider_auth_failed`, anything else
 * (5xx, timeouts after 10 s, refused connections) `provider_unavailable`, and a cluster whose
 * variable is unset `provider_not_configured`.
 */
export class KubeCluster {
  private client: KubeClient | undefined;

  constructor(
    /** The provider's name in errors and metrics (`garden`, `apps-cluster`). */
    readonly provider: string,
    /** The variable naming the kubeconfig, for the 503's message. */
    private readonly variable: string,
    private readonly kubeconfigPath: string | null,
    private readonly metrics?: UpstreamMetrics,
    private readonly timeoutMs = UPSTREAM_TIMEOUT_MS,
  ) {}

  get configured(): boolean {
    return this.kubeconfigPath !== null;
  }

  /** The client, or 503 `provider_not_configured`. */
  get kube(): KubeClient {
    if (!this.kubeconfigPath) throw providerNotConfigured(this.provider, this.variable);
    this.client ??= KubeClient.fromEnvironment(this.kubeconfigPath, {
      requestTimeoutMs: this.timeoutMs,
    });
    return this.client;
  }

  /** Runs calls against the cluster; their failures answer by rule 4. */
  async run<T>(service: string, call: (kube: KubeClient) => Promise<T>): Promise<T> {
    if (!this.kubeconfigPath) throw providerNotConfigured(this.provider, this.variable);
    const started = process.hrtime.bigint();
    try {
      // Inside: a kubeconfig file that cannot be read fails here, and answers by rule 4 too.
      const result = await call(this.kube);
      this.metrics?.observe(this.provider, service, 'ok', started);
      return result;
    } catch (error) {
      const mapped = this.failure(error);
      const outcome = mapped.code === 'provider_unavailable' ? 'unavailable' : 'ok';
      this.metrics?.observe(this.provider, service, outcome, started);
      throw mapped;
    }
  }

  /** Rule 4 for the Kubernetes API server's answers and for no answer at all. */
  failure(error: unknown): AppException {
    if (error instanceof CloudException) return error;
    if (isKubeApiError(error)) {
      const details = {
        provider: this.provider,
        upstream_status: error.status,
        message: error.message,
      };
      if (error.status === 404)
        return new CloudException(CloudErrorCode.NotFound, 'Resource not found');
      if (error.status === 409) {
        return new CloudException(CloudErrorCode.Conflict, error.message, { details });
      }
      if (error.status === 400 || error.status === 422) {
        return new CloudException(
          CloudErrorCode.UpstreamRejected,
          `The cluster rejected the request: ${error.message}`,
          { details },
        );
      }
      if (error.status === 401 || error.status === 403) {
        return providerAuthFailed(this.provider, error.status);
      }
      return providerUnavailable(this.provider, `answered ${error.status}`, details);
    }
    const what = error instanceof Error ? error.message : String(error);
    return providerUnavailable(this.provider, what);
  }
}
