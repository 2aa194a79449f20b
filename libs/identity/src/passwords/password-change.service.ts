import { Injectable } from '@nestjs/common';
import { actorOf, AuditLog, type AuditActor } from '@platform/audit';
import { Clock } from '@platform/core';
import { DataSource, type EntityManager } from 'typeorm';
import type { Principal } from '../access/principal.js';
import { AccountsRepository } from '../accounts/accounts.repository.js';
import { type LoginResult, LoginService } from '../auth/login.service.js';
import { PasswordHasher } from '../auth/passwords.js';
import { Reauthentication } from '../auth/reauthentication.js';
import { sessionsValidFrom } from '../auth/session-tokens.js';
import { MembershipsRepository } from '../organizations/memberships.repository.js';
import { SecurityNotices } from '../security/security-notices.js';

/**
 * A password event concerns the account rather than one organization: the audit log gets an
 * entry (`passwords.change` or `passwords.reset`, target the account) in every organization
 * the account belongs to, where its admins see it.
 */
export async function auditPasswordEvent(
  audit: AuditLog,
  manager: EntityManager,
  event: { actor: AuditActor; action: string; accountId: string; organizationIds: string[] },
): Promise<void> {
  for (const organizationId of event.organizationIds) {
    await audit.record(
      {
        actor: event.actor,
        action: event.action,
        organizationId,
        projectId: null,
        target: { type: 'account', id: event.accountId },
      },
      manager,
    );
  }
}

/** `POST /accounts/me/password`: a login session changes its account's password. */
@Injectable()
export class PasswordChangeService {
  constructor(
    private readonly passwords: PasswordHasher,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly accounts: AccountsRepository,
    private readonly memberships: MembershipsRepository,
    private readonly reauthentication: Reauthentication,
    private readonly logins: LoginService,
    private readonly audit: AuditLog,
    private readonly notices: SecurityNotices,
  ) {}

  /**
   * Needs the current password (a wrong one is a failed login of the account). Every session
   * of the account ends, this one included, which gets a fresh session in the answer; static
   * tokens stay.
   */
  async change(
    principal: Principal,
    currentPassword: string,
    password: string,
  ): Promise<LoginResult> {
    const account = await this.reauthentication.confirmPassword(
      principal.account.id,
      currentPassword,
    );
    const passwordHash = await this.passwords.hash(password);
    const organizationIds = (await this.memberships.listForAccount(account.id)).map(
      (m) => m.organization_id,
    );
    const now = this.clock.now();
    const sessionsValidAfter = sessionsValidFrom(now);
    await this.dataSource.transaction(async (manager) => {
      await this.accounts.changePassword(
        manager,
        account.id,
        { passwordHash, sessionsValidAfter, verifyEmail: false },
        now,
      );
      await auditPasswordEvent(this.audit, manager, {
        actor: actorOf(principal),
        action: 'passwords.change',
        accountId: account.id,
        organizationIds,
      });
    });
    this.notices.tell({
      event: 'password_changed',
      accountId: account.id,
      organizationId: null,
      path: '/password-reset',
    });
    return this.logins.startSession(Object.assign(account, { sessionsValidAfter }));
  }
}
