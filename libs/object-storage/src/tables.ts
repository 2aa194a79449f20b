import type { TableOwnership } from '@platform/database';

/** The tables only the object-storage library writes. */
export const OBJECT_STORAGE_TABLES: TableOwnership = {
  library: 'object-storage',
  tables: ['rgw_user', 'rgw_user_usage_level'],
};
