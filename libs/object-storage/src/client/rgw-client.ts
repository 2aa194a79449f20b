import { Inject, Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { providerNotConfigured, UpstreamHttp, UpstreamMetrics } from '@platform/cloud-core';
import { APP_CONFIG, type AppConfig, type RgwAdminConfig } from '@platform/core';
import { refusalOf, rgwError } from './rgw-errors.js';
import { type QueryParameter, type S3Credentials, signRequest, wireQuery } from './sigv4.js';

/** The most one RGW call may take: rule 4's 10 s (tests of timeouts shorten it). */
export const RGW_CALL_TIMEOUT_MS = Symbol('RGW_CALL_TIMEOUT_MS');

export interface RgwCallOptions {
  /**
   * RGW error codes meaning the change is already in place (a key or user already gone): the
   * call then answers undefined instead of failing.
   */
  done?: readonly string[];
}

/**
 * The Ceph RGW the platform is configured with: Admin Ops calls (`/admin/user`, `/admin/bucket`)
 * signed with the platform's admin key, and S3 calls at `RGW_S3_URL` signed with a user's own key.
 * Every request is signed with SigV4 (service `s3`, region `RGW_REGION`) over kept-alive
 * connections, 10 s at most each; nothing is retried (a write may have been applied, and the
 * reads are one click from a retry by the caller). Errors map by rule 4 (`rgwError`).
 */
@Injectable()
export class RgwClient implements OnModuleDestroy {
  private readonly http: UpstreamHttp;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RGW_CALL_TIMEOUT_MS) private readonly timeoutMs: number,
    @Optional() metrics?: UpstreamMetrics,
  ) {
    this.http = new UpstreamHttp('rgw', metrics);
  }

  onModuleDestroy(): void {
    this.http.close();
  }

  /** The RGW settings, or 503 `provider_not_configured` when the RGW_* variables are unset. */
  get settings(): RgwAdminConfig {
    if (!this.config.rgw) {
      throw providerNotConfigured('rgw', 'RGW_ADMIN_URL, RGW_ACCESS_KEY, RGW_SECRET_KEY');
    }
    return this.config.rgw;
  }

  /** Throws 503 `provider_not_configured` when the RGW_* settings are unset. */
  requireConfigured(): void {
    void this.settings;
  }

  /** An Admin Ops call, answering RGW's parsed JSON. */
  admin<T>(
    method: 'GET' | 'PUT' | 'POST' | 'DELETE',
    resource: 'user' | 'bucket',
    query: readonly QueryParameter[],
    options: RgwCallOptions = {},
  ): Promise<T> {
    const rgw = this.settings;
    return this.send<T>(
      'admin',
      { accessKeyId: rgw.accessKey, secretAccessKey: rgw.secretKey },
      method,
      this.urlOf(rgw.adminUrl, `/admin/${resource}`),
      [...query, ['format', 'json']],
      options,
    );
  }

  /** An S3 call at RGW_S3_URL (path-style: `/<bucket>`), signed with the user's own key. */
  async s3(method: 'PUT', path: string, credentials: S3Credentials): Promise<void> {
    await this.send('s3', credentials, method, this.urlOf(this.settings.s3Url, path), [], {});
  }

  private urlOf(base: string, path: string): URL {
    const url = new URL(base);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
    return url;
  }

  private async send<T>(
    service: 'admin' | 's3',
    credentials: S3Credentials,
    method: string,
    url: URL,
    query: readonly QueryParameter[],
    options: RgwCallOptions,
  ): Promise<T> {
    const headers = await signRequest(credentials, this.settings.region, { method, url, query });
    const search = wireQuery(query);
    const answer = await this.http.request(
      {
        method,
        url: `${url.origin}${url.pathname}${search ? `?${search}` : ''}`,
        headers,
        timeoutMs: this.timeoutMs,
      },
      service,
    );
    if (answer.status >= 200 && answer.status < 300) return answer.body as T;
    const refusal = refusalOf(answer.status, answer.body);
    if (refusal.code && options.done?.includes(refusal.code)) return undefined as T;
    throw rgwError(refusal);
  }
}
