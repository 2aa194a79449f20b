import type { MigrationClass } from '@platform/database';
import { Identity1764000000000 } from './1764000000000-identity.js';
import { SessionRevocation1764000000018 } from './1764000000018-session-revocation.js';
import { AccountLoginOrigin1764000000030 } from './1764000000030-account-login-origin.js';
import { AccountEmailChange1764000000038 } from './1764000000038-account-email-change.js';

/**
 * The migrations of identity's tables, in order. Released ones are never edited (names and
 * timestamps are recorded in deployed databases); add new ones at the end.
 */
export const IDENTITY_MIGRATIONS: MigrationClass[] = [
  Identity1764000000000,
  SessionRevocation1764000000018,
  AccountLoginOrigin1764000000030,
  AccountEmailChange1764000000038,
];
