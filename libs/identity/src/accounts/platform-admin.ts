import type { DataSource } from 'typeorm';
import type { PasswordHasher } from '../auth/passwords.js';
import { AccountsRepository } from './accounts.repository.js';

export interface PlatformAdminCredentials {
  login: string;
  password: string;
}

/** What ensuring did: made the account, changed it, or found it as configured. */
export type PlatformAdminOutcome = 'created' | 'updated' | 'unchanged';

/**
 * Ensures a verified platform-admin account with this login and password
 * (PLATFORM_ADMIN_LOGIN and PLATFORM_ADMIN_PASSWORD): creates it, or promotes and verifies the
 * account holding the login and applies a changed password. Idempotent and safe to run from any
 * number of processes at once: a transaction-scoped advisory lock on the login makes them take
 * turns, so the later ones find the account as configured; the insert also yields to an account
 * that a signup made meanwhile, which is then promoted. It needs only a connection to the
 * database (no entity metadata), so `migrate` runs it as well as the API.
 */
export function ensurePlatformAdmin(
  dataSource: DataSource,
  admin: PlatformAdminCredentials,
  passwords: PasswordHasher,
  now: Date,
): Promise<PlatformAdminOutcome> {
  const accounts = new AccountsRepository(dataSource);
  return dataSource.transaction(async (manager) => {
    await accounts.lockLogin(manager, admin.login);
    let existing = await accounts.findForUpdate(manager, admin.login);
    if (!existing) {
      const hash = await passwords.hash(admin.password);
      if (await accounts.insertPlatformAdmin(manager, admin.login, hash, now)) return 'created';
      existing = await accounts.findForUpdate(manager, admin.login);
      if (!existing) throw new Error(`account ${admin.login} is neither insertable nor present`);
    }
    const passwordCurrent = await passwords.verify(existing.passwordHash, admin.password);
    if (existing.isPlatformAdmin && existing.emailVerifiedAt && passwordCurrent) return 'unchanged';
    const hash = passwordCurrent ? null : await passwords.hash(admin.password);
    await accounts.promoteToPlatformAdmin(manager, existing.id, hash, now);
    return 'updated';
  });
}
