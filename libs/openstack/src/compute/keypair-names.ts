import type { TenantCloud } from '../tenancy/tenant-cloud.js';

/*
 * Nova keeps keypairs per user, not per project, and every tenant reaches Nova as the one
 * service user: left alone, tenants would list, collide with, delete and boot with each
 * other's keypairs. So a tenant's keypairs live in Nova under a name prefixed with its own
 * Keystone project id (`<keystone project id>_<name>`): lists keep only the tenant's prefix,
 * every name sent is prefixed and every name answered is stripped. A tenant can only ever
 * name keypairs under its own prefix, so another tenant's keypair is a 404 like any other id.
 */

/** Nova's longest keypair name. */
const NOVA_NAME_LENGTH = 255;
/** The 32 hex digits of a Keystone project id and the `_` after them. */
export const KEYPAIR_PREFIX_LENGTH = 33;
/** The longest name a tenant may give a keypair. */
export const KEYPAIR_NAME_LENGTH = NOVA_NAME_LENGTH - KEYPAIR_PREFIX_LENGTH;

const prefixOf = (cloud: TenantCloud) => `${cloud.keystoneProjectId}_`;

/** The name Nova knows the tenant's keypair by. */
export const novaKeypairName = (cloud: TenantCloud, name: string) => `${prefixOf(cloud)}${name}`;

/** The tenant's name of a keypair Nova names, or null when it is not the tenant's. */
export function tenantKeypairName(cloud: TenantCloud, novaName: unknown): string | null {
  const prefix = prefixOf(cloud);
  return typeof novaName === 'string' && novaName.startsWith(prefix)
    ? novaName.slice(prefix.length)
    : null;
}

/** A server as the tenant sees it: its `key_name` without the tenant's prefix. */
export function withTenantKeyName<T extends Record<string, unknown>>(
  cloud: TenantCloud,
  server: T,
): T {
  if (typeof server.key_name !== 'string') return server;
  return { ...server, key_name: tenantKeypairName(cloud, server.key_name) ?? server.key_name };
}
