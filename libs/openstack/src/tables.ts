import type { TableOwnership } from '@platform/database';

/** The tables only the openstack library writes. */
export const OPENSTACK_TABLES: TableOwnership = {
  library: 'openstack',
  tables: ['openstack_project', 'dns_zone_verification', 'openstack_server_watch'],
};
