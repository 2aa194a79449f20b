import type { TableOwnership } from '@platform/database';

/** The tables only audit writes. */
export const AUDIT_TABLES: TableOwnership = {
  library: 'audit',
  tables: ['audit_log'],
};
