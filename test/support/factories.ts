import {
  AccountsRepository,
  MembershipsRepository,
  Organization,
  PasswordHasher,
  type Role,
  SessionTokens,
} from '@platform/identity';
import type { TestApp } from '@platform/testing';
import { DataSource, type EntityManager } from 'typeorm';
import { LegalRepository } from '../../libs/identity/src/signup/legal.repository.js';
import { PASSWORD, type TestAccount } from './identity.js';

/*
 * Accounts built through identity's repositories, for tests where signing up, verifying and
 * inviting are not what is under test (test/identity tests those through the API). The state is
 * what the API would leave: a verified account with the current legal consents, its
 * organization with it as admin, a session. No e-mail is sent, so no SMTP sink is needed.
 */

/** A verified account with PASSWORD, the admin of a new organization, logged in. */
export async function seedAccount(
  t: TestApp,
  email: string,
  organization = `Org of ${email}`,
): Promise<TestAccount> {
  const now = t.clock.now();
  const passwordHash = await t.get(PasswordHasher).hash(PASSWORD);
  const { accountId, organizationId } = await t.get(DataSource).transaction(async (manager) => {
    const accountId = await createVerifiedAccount(t, manager, email, passwordHash);
    const created = await manager
      .getRepository(Organization)
      .save({ name: organization, createdAt: now, updatedAt: now });
    await t.get(MembershipsRepository).add(manager, created.id, accountId, 'admin', now);
    return { accountId, organizationId: created.id };
  });
  return {
    login: email,
    password: PASSWORD,
    accountId,
    organizationId,
    jwt: await session(t, accountId),
  };
}

/**
 * `email` as a member of `admin`'s organization in `role`: the account is made when no account
 * holds the address yet (as accepting an invitation by signing up would), else the existing one
 * joins (as signing in and accepting would).
 */
export async function seedMember(
  t: TestApp,
  admin: TestAccount,
  email: string,
  role: Role,
): Promise<TestAccount> {
  const now = t.clock.now();
  const accounts = t.get(AccountsRepository);
  const passwordHash = await t.get(PasswordHasher).hash(PASSWORD);
  const accountId = await t.get(DataSource).transaction(async (manager) => {
    const existing = await accounts.findByLogin(email, manager);
    const id = existing?.id ?? (await createVerifiedAccount(t, manager, email, passwordHash));
    await t.get(MembershipsRepository).add(manager, admin.organizationId, id, role, now);
    return id;
  });
  return {
    login: email,
    password: PASSWORD,
    accountId,
    organizationId: admin.organizationId,
    jwt: await session(t, accountId),
  };
}

async function createVerifiedAccount(
  t: TestApp,
  manager: EntityManager,
  email: string,
  passwordHash: string,
): Promise<string> {
  const now = t.clock.now();
  const account = await t.get(AccountsRepository).create(
    manager,
    {
      login: email,
      name: email.split('@')[0],
      passwordHash,
      emailVerifiedAt: now,
      isPlatformAdmin: false,
    },
    now,
  );
  const legal = t.get(LegalRepository);
  await legal.recordConsent(manager, account.id, await legal.current(manager), now);
  return account.id;
}

async function session(t: TestApp, accountId: string): Promise<string> {
  return (await t.get(SessionTokens).issue(accountId)).token;
}
