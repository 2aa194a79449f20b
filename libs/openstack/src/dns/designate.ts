import { providerUnavailable } from '@platform/cloud-core';
import type { TenantCloud } from '../tenancy/tenant-cloud.js';

/** A Designate zone as its v2 API answers it (`name` with the final dot). */
export type DesignateZone = Record<string, unknown> & { id: string; name: string };
/** A Designate record set (`name` absolute, `records` its data). */
export type DesignateRecordset = Record<string, unknown> & {
  id: string;
  name: string;
  type: string;
  records: string[];
};

/** More pages than any tenant's zones or record sets fill: a marker loop, not data. */
const MAX_PAGES = 1000;

interface Page {
  links?: { next?: string | null };
}

/**
 * Every item of a Designate collection: Designate pages its lists (its default page is small),
 * with the next page's absolute URL in `links.next`, whose query (marker, limit) is followed
 * against the catalog endpoint rather than the URL itself, so the token never goes elsewhere.
 */
export async function listAll<T>(
  cloud: TenantCloud,
  path: string,
  key: string,
  query: Record<string, string> = {},
): Promise<T[]> {
  const items: T[] = [];
  let pageQuery: Record<string, string> = query;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await cloud.call<Page & Record<string, unknown>>('dns', {
      method: 'GET',
      path,
      query: pageQuery,
    });
    const found = answer[key];
    if (Array.isArray(found)) items.push(...(found as T[]));
    const next = answer.links?.next;
    if (!next || !Array.isArray(found) || found.length === 0) return items;
    pageQuery = {
      ...query,
      ...Object.fromEntries(new URL(next, 'http://next.invalid').searchParams),
    };
  }
  throw providerUnavailable('openstack', `Designate listed more than ${MAX_PAGES} pages of ${key}`);
}

export const zonePath = (zoneId: string) => `/v2/zones/${encodeURIComponent(zoneId)}`;

export const recordsetsPath = (zoneId: string) => `${zonePath(zoneId)}/recordsets`;

export const getZone = (cloud: TenantCloud, zoneId: string) =>
  cloud.call<DesignateZone>('dns', { method: 'GET', path: zonePath(zoneId) });
