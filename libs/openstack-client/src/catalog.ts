import { type OpenStackFailures, PLAIN_FAILURES } from './errors.js';
import type { CatalogService } from './keystone.js';

/** The OpenStack services the platform calls, by their catalog type. */
export type ServiceType =
  'compute' | 'image' | 'network' | 'block-storage' | 'load-balancer' | 'dns';

/** Catalog types each service is registered under (Cinder's changed over the releases). */
const CATALOG_TYPES: Record<ServiceType, readonly string[]> = {
  compute: ['compute'],
  image: ['image'],
  network: ['network'],
  'block-storage': ['block-storage', 'volumev3', 'volume'],
  'load-balancer': ['load-balancer'],
  dns: ['dns'],
};

/**
 * The public endpoint of a service in the token's catalog for the region (any region when
 * none is configured), without its trailing slash.
 */
export function endpointOf(
  catalog: readonly CatalogService[],
  service: ServiceType,
  region: string | null,
  failures: OpenStackFailures = PLAIN_FAILURES,
): string {
  for (const type of CATALOG_TYPES[service]) {
    const entry = catalog.find((candidate) => candidate.type === type);
    const endpoint = entry?.endpoints.find(
      (e) =>
        e.interface === 'public' &&
        (region === null || e.region_id === region || e.region === region),
    );
    if (endpoint) return endpoint.url.replace(/\/+$/, '');
  }
  throw failures.unavailable(
    `the catalog has no public ${service} endpoint${region ? ` in region ${region}` : ''}`,
  );
}
