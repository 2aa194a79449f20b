import type { Clock } from '@platform/core';
import { endpointOf, type ServiceType } from './catalog.js';
import {
  OpenStackHttpError,
  type OpenStackFailures,
  openStackMessage,
  PLAIN_FAILURES,
} from './errors.js';
import { Keystone, type KeystoneCredentials, type TokenScope } from './keystone.js';
import { NodeHttpTransport, type OpenStackTransport } from './transport.js';

export interface OpenStackCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to the service's catalog endpoint, e.g. `/servers/detail` or `/v2.0/networks`. */
  path: string;
  body?: unknown;
  query?: Record<string, string | undefined>;
}

export interface OpenStackSessionOptions {
  credentials: KeystoneCredentials;
  scope: TokenScope;
  /** The catalog region to call; null takes each service's first public endpoint. */
  region: string | null;
  clock: Clock;
  transport?: OpenStackTransport;
  timeoutMs?: number;
}

/**
 * One set of credentials and one scope, standalone (no application module): what a process
 * that gets its credentials per resource, such as an operator reading a Secret, calls the
 * cloud with. A 401 drops the cached token and tries once more with a fresh one; any other
 * error status is an OpenStackHttpError carrying the service's message.
 */
export class OpenStackSession {
  private readonly keystone: Keystone;
  private readonly failures: OpenStackFailures = PLAIN_FAILURES;
  private readonly transport: OpenStackTransport;

  constructor(private readonly options: OpenStackSessionOptions) {
    this.transport = options.transport ?? new NodeHttpTransport(this.failures);
    this.keystone = new Keystone(options.credentials, this.transport, options.clock, this.failures);
  }

  async call<T = unknown>(service: ServiceType, call: OpenStackCall): Promise<T> {
    const { scope, region } = this.options;
    let token = await this.keystone.token(scope);
    for (let attempt = 0; ; attempt++) {
      const base = endpointOf(token.catalog, service, region, this.failures);
      const answer = await this.transport.request(
        {
          method: call.method,
          url: `${base}${call.path}${queryString(call.query)}`,
          body: call.body,
          timeoutMs: this.options.timeoutMs,
          headers: { 'x-auth-token': token.value },
        },
        service,
      );
      if (answer.status === 401 && attempt === 0) {
        this.keystone.forget(scope, token);
        token = await this.keystone.token(scope);
        continue;
      }
      if (answer.status >= 400) {
        throw new OpenStackHttpError(
          answer.status,
          openStackMessage(answer.body),
          `${service} ${call.method} ${call.path}`,
        );
      }
      return answer.body as T;
    }
  }
}

export function queryString(query: OpenStackCall['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}
