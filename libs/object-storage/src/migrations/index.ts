import type { MigrationClass } from '@platform/database';
import { RgwUsers1764000000023 } from './1764000000023-rgw-users.js';
import { RgwUsageLevel1764000000032 } from './1764000000032-rgw-usage-level.js';

/**
 * The migrations of the object-storage library's tables, in order. Released ones are never
 * edited; add new ones at the end.
 */
export const OBJECT_STORAGE_MIGRATIONS: MigrationClass[] = [
  RgwUsers1764000000023,
  RgwUsageLevel1764000000032,
];
