import type { MigrationClass } from '@platform/database';
import { AuditLog1764000000009 } from './1764000000009-audit-log.js';

/**
 * The migrations of audit's tables, in order. Released ones are never edited (names and
 * timestamps are recorded in deployed databases); add new ones at the end.
 */
export const AUDIT_MIGRATIONS: MigrationClass[] = [AuditLog1764000000009];
