import type { TableOwnership } from '@platform/database';

/** The tables only capabilities writes. */
export const CAPABILITIES_TABLES: TableOwnership = {
  library: 'capabilities',
  tables: ['feature', 'feature_grant', 'feature_limit', 'feature_request'],
};
