import type { MigrationClass } from '@platform/database';
import { OpenStackProjects1764000000021 } from './1764000000021-openstack-projects.js';
import { DnsZoneVerification1764000000022 } from './1764000000022-dns-zone-verification.js';
import { OpenStackServerWatch1764000000026 } from './1764000000026-openstack-server-watch.js';

/**
 * The migrations of the openstack library's tables, in order. Released ones are never edited;
 * add new ones at the end.
 */
export const OPENSTACK_MIGRATIONS: MigrationClass[] = [
  OpenStackProjects1764000000021,
  DnsZoneVerification1764000000022,
  OpenStackServerWatch1764000000026,
];
