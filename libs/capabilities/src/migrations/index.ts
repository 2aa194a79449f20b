import type { MigrationClass } from '@platform/database';
import { Capabilities1764000000002 } from './1764000000002-capabilities.js';

/**
 * The migrations of capabilities's tables, in order. Released ones are never edited (names and
 * timestamps are recorded in deployed databases); add new ones at the end.
 */
export const CAPABILITIES_MIGRATIONS: MigrationClass[] = [Capabilities1764000000002];
