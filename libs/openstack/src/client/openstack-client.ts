import { Inject, Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import {
  isTimeout,
  providerAuthFailed,
  providerNotConfigured,
  providerUnavailable,
  UpstreamHttp,
  UpstreamMetrics,
  upstreamStatusError,
} from '@platform/cloud-core';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import {
  endpointOf,
  Keystone,
  type OpenStackCall,
  type OpenStackFailures,
  queryString,
  type ServiceType,
  type TokenScope,
} from '@platform/openstack-client';

export type { OpenStackCall } from '@platform/openstack-client';

/** The Nova microversion the platform speaks (Train and later). */
export const NOVA_MICROVERSION = '2.79';
/** The most one call may take: rule 4's 10 s (tests of timeouts shorten it). */
export const OPENSTACK_CALL_TIMEOUT_MS = Symbol('OPENSTACK_CALL_TIMEOUT_MS');
/** Pauses before the retries of an idempotent read that failed upstream. */
const READ_RETRY_DELAYS_MS = [100, 400];

/** Rule 4 of 4-cloud-resources.md for Keystone and the catalog. */
const CLOUD_FAILURES: OpenStackFailures = {
  refused: (status) => providerAuthFailed('openstack', status),
  unavailable: (what) => providerUnavailable('openstack', what),
};

/**
 * Thin, typed calls to an OpenStack cloud: no well-kept Node SDK for OpenStack exists, so this
 * layer is only what the routes need. Every call carries a token of one scope, resolved
 * against that token's catalog; GETs are retried twice on a 5xx or a refused connection
 * (never writes, which may have been applied); a 401 drops the cached token and tries once
 * more with a fresh one; any other error status maps by rule 4.
 */
@Injectable()
export class OpenStackClient implements OnModuleDestroy {
  private readonly http: UpstreamHttp;
  private readonly keystone: Keystone | null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    clock: Clock,
    @Inject(OPENSTACK_CALL_TIMEOUT_MS) private readonly timeoutMs: number,
    @Optional() metrics?: UpstreamMetrics,
  ) {
    this.http = new UpstreamHttp('openstack', metrics);
    this.keystone = config.openstack
      ? new Keystone(config.openstack, this.http, clock, CLOUD_FAILURES)
      : null;
  }

  onModuleDestroy(): void {
    this.http.close();
  }

  /** Throws 503 `provider_not_configured` when the OPENSTACK_* settings are unset. */
  requireConfigured(): void {
    void this.identity;
  }

  /** Keystone, or 503 `provider_not_configured` when the OPENSTACK_* settings are unset. */
  get identity(): Keystone {
    if (!this.keystone) {
      throw providerNotConfigured(
        'openstack',
        'OPENSTACK_AUTH_URL, OPENSTACK_USERNAME, OPENSTACK_PASSWORD',
      );
    }
    return this.keystone;
  }

  /** Calls Keystone itself (paths below `/v3`) with a token of `scope`. */
  identityCall<T = unknown>(scope: TokenScope, call: OpenStackCall): Promise<T> {
    return this.call<T>(scope, 'identity', call);
  }

  /** Calls a service of the cloud with a token of `scope`; answers the parsed body. */
  async call<T = unknown>(
    scope: TokenScope,
    service: ServiceType | 'identity',
    call: OpenStackCall,
  ): Promise<T> {
    const keystone = this.identity;
    let token = await keystone.token(scope);
    const retries = call.method === 'GET' ? READ_RETRY_DELAYS_MS : [];
    for (let attempt = 0; ; attempt++) {
      const base =
        service === 'identity'
          ? keystone.identityUrl
          : endpointOf(token.catalog, service, this.config.openstack!.region, CLOUD_FAILURES);
      const url = `${base}${call.path}${queryString(call.query)}`;
      let answer;
      try {
        answer = await this.http.request(
          {
            method: call.method,
            url,
            body: call.body,
            timeoutMs: this.timeoutMs,
            headers: {
              'x-auth-token': token.value,
              ...(service === 'compute'
                ? { 'openstack-api-version': `compute ${NOVA_MICROVERSION}` }
                : {}),
            },
          },
          service,
        );
      } catch (error) {
        if (attempt < retries.length && !isTimeout(error)) {
          await pause(retries[attempt]);
          continue;
        }
        throw error;
      }
      if (answer.status === 401 && attempt === 0) {
        keystone.forget(scope, token);
        token = await keystone.token(scope);
        continue;
      }
      if (answer.status >= 500 && attempt < retries.length) {
        await pause(retries[attempt]);
        continue;
      }
      if (answer.status >= 400) throw upstreamStatusError('openstack', answer.status, answer.body);
      return answer.body as T;
    }
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
