import { promises as dns } from 'node:dns';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { providerUnavailable, UPSTREAM_TIMEOUT_MS, UpstreamMetrics } from '@platform/cloud-core';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import { OPENSTACK_CALL_TIMEOUT_MS } from '../client/openstack-client.js';

/** The provider named in errors and metrics when the resolver fails us. */
export const DNS_RESOLVER_PROVIDER = 'dns_resolver';

/** Each query is sent this many times before the resolver gives up. */
const TRIES = 2;

/**
 * What the resolver said about a name's TXT records. The name not existing (NXDOMAIN) and it
 * having no TXT records (NODATA) are answers, about the customer's DNS; anything else is the
 * resolver failing us.
 */
export interface TxtAnswer {
  outcome: 'found' | 'no_such_name' | 'no_txt_record';
  /** Empty unless found. */
  values: string[];
}

/** Resolver errors that are definite answers about the name. */
const ANSWERS: Record<string, TxtAnswer['outcome']> = {
  ENOTFOUND: 'no_such_name',
  ENODATA: 'no_txt_record',
};

/** How each failure of the resolver reads in the error message. */
const FAILURES: Record<string, string> = {
  ETIMEOUT: 'no answer in time',
  ECANCELLED: 'no answer in time',
  ECONNREFUSED: 'connection refused',
  EREFUSED: 'the resolver refused the query',
  ESERVFAIL:
    'the resolver reported a server failure (SERVFAIL): the name servers of the domain did not answer it properly, or it could not reach them',
};

/**
 * TXT lookups through `DNS_RESOLVER` (host:port), or the system's resolvers when it is unset:
 * Node's resolver, a fresh one per lookup, so cancelling one at its deadline cancels nothing
 * else. Bounded like any upstream call (rule 4): the resolver's own retries fit in the
 * deadline, after which the lookup is cancelled. SERVFAIL counts as the resolver failing
 * (retryable), not as an answer: the platform cannot tell a broken delegation from its own
 * resolver's trouble, and must not tell a customer their record is missing when it did not
 * get to look.
 */
@Injectable()
export class TxtLookup {
  private readonly deadlineMs: number;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() private readonly metrics?: UpstreamMetrics,
    @Optional() @Inject(OPENSTACK_CALL_TIMEOUT_MS) timeoutMs?: number,
  ) {
    this.deadlineMs = timeoutMs ?? UPSTREAM_TIMEOUT_MS;
  }

  /** The TXT values at `name` (each record's character-strings joined, as SPF reads them). */
  async lookup(name: string): Promise<TxtAnswer> {
    // c-ares doubles the wait of each retry: a quarter of the deadline per first try fits two.
    const resolver = new dns.Resolver({
      timeout: Math.max(50, Math.floor(this.deadlineMs / 4)),
      tries: TRIES,
    });
    if (this.config.dnsResolver) resolver.setServers([this.config.dnsResolver]);
    const started = process.hrtime.bigint();
    const deadline = setTimeout(() => resolver.cancel(), this.deadlineMs);
    try {
      const records = await resolver.resolveTxt(name);
      this.metrics?.observe(DNS_RESOLVER_PROVIDER, 'txt', 'ok', started);
      return { outcome: 'found', values: records.map((chunks) => chunks.join('')) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      const answer = ANSWERS[code];
      this.metrics?.observe(DNS_RESOLVER_PROVIDER, 'txt', answer ? 'ok' : 'unavailable', started);
      if (answer) return { outcome: answer, values: [] };
      throw providerUnavailable(
        DNS_RESOLVER_PROVIDER,
        FAILURES[code] ?? `lookup failed (${code})`,
        {
          provider: DNS_RESOLVER_PROVIDER,
          resolver_error: code,
          timed_out: code === 'ETIMEOUT' || code === 'ECANCELLED',
        },
      );
    } finally {
      clearTimeout(deadline);
    }
  }
}
