import { Inject, Injectable } from '@nestjs/common';
import { type AuditActor, AuditLog } from '@platform/audit';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { Mailer } from '@platform/mail';
import { RATE_LIMITS, RateLimiter } from '@platform/rate-limits';
import { DataSource, type EntityManager } from 'typeorm';
import { AccountsRepository } from '../accounts/accounts.repository.js';
import type { Principal } from '../access/principal.js';
import { PasswordHasher } from '../auth/passwords.js';
import { randomSecret, sha256 } from '../auth/secrets.js';
import { type Account, Invitation, Organization } from '../entities.js';
import { IdentityErrorCode, IdentityException, notFound } from '../identity-exception.js';
import { MembershipsRepository } from '../organizations/memberships.repository.js';
import { assertWithinCeiling, grantorOf } from '../organizations/role-ceiling.js';
import { InviteeAccountsRepository } from './invitee-accounts.repository.js';
import type { InviteeSession } from './invitee-session.js';
import type { AcceptInvitationBody, CreateInvitationBody } from './invitations.dto.js';

export const INVITATION_TTL_DAYS = 7;

/** Declining needs only the token: no account acts. */
const NO_ACCOUNT: AuditActor = { accountId: null, credential: null };

/** The new account's name, once name, password and its confirmation are all there (else 422). */
function requireSignupFields(body: AcceptInvitationBody, passwordHash: string | null): string {
  const missing = (['name', 'password', 'password-confirm'] as const).filter((f) => !body[f]);
  if (missing.length > 0 || !passwordHash) {
    throw new IdentityException(
      IdentityErrorCode.ValidationFailed,
      `Validation failed: ${missing.join(', ')} required to create the invited account`,
      {
        details: {
          fields: missing.map((field) => ({ field, messages: [`${field} is required`] })),
        },
      },
    );
  }
  return body.name!.trim();
}

@Injectable()
export class InvitationsService {
  constructor(
    private readonly passwords: PasswordHasher,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly accounts: AccountsRepository,
    private readonly memberships: MembershipsRepository,
    private readonly inviteeAccounts: InviteeAccountsRepository,
    private readonly audit: AuditLog,
    private readonly mailer: Mailer,
    private readonly limits: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Within the role ceiling: nobody invites into a role above their own (role-ceiling.ts).
   * Each invitation e-mail counts per organization and per invited address (429
   * `rate_limited`), so nobody floods a mailbox through invitations.
   */
  async invite(
    principal: Principal,
    actor: AuditActor,
    organizationId: string,
    body: CreateInvitationBody,
  ) {
    const grantor = grantorOf(principal.account, principal.membership, principal.token);
    assertWithinCeiling(grantor, null, { role: body.role, permissions: {} });
    const email = body.email.trim().toLowerCase();
    const existing = await this.accounts.findByLogin(email);
    if (existing && (await this.memberships.find(existing.id, organizationId))) {
      throw new IdentityException(
        IdentityErrorCode.AlreadyMember,
        `${email} is already a member of this organization`,
      );
    }
    await this.limits.take(
      { rule: RATE_LIMITS.invitationsPerOrganization, key: organizationId },
      { rule: RATE_LIMITS.invitationsPerInvitee, key: email },
    );
    const token = randomSecret();
    const now = this.clock.now();
    const invitation = await this.dataSource.transaction(async (manager) => {
      const saved = await manager.getRepository(Invitation).save({
        organizationId,
        email,
        role: body.role,
        tokenHash: sha256(token),
        invitedBy: principal.account.id,
        expiresAt: new Date(now.getTime() + INVITATION_TTL_DAYS * 86_400_000),
        acceptedAt: null,
        declinedAt: null,
        createdAt: now,
      });
      await this.record(manager, actor, saved, 'invitations.create', {});
      return saved;
    });
    await this.sendInvitation(principal.account.name, invitation, token);
    return {
      id: invitation.id,
      organization_id: organizationId,
      email,
      role: invitation.role,
      expires_at: invitation.expiresAt,
      created_at: invitation.createdAt,
    };
  }

  async show(token: string) {
    const { invitation, organization } = await this.pending(this.dataSource.manager, token);
    const account = await this.accounts.findByLogin(invitation.email);
    return {
      id: invitation.id,
      organization_id: organization.id,
      organization_name: organization.name,
      email: invitation.email,
      role: invitation.role,
      expires_at: invitation.expiresAt,
      // Whether to sign in (true) or sign up through the invitation (false): an unverified
      // registration of the address is taken over by signing up, so it does not count.
      account_exists: Boolean(account?.emailVerifiedAt),
    };
  }

  /**
   * Signed in as the invited address, the account gains the membership at once; without a
   * session, `{name, password, password-confirm}` signs up through the invitation, which
   * verifies the address. An unverified account never gains a membership this way.
   */
  async accept(session: InviteeSession | null, token: string, body: AcceptInvitationBody) {
    const passwordHash =
      !session && body.password ? await this.passwords.hash(body.password) : null;
    return this.dataSource.transaction(async (manager) => {
      const { invitation } = await this.pending(manager, token, true);
      const now = this.clock.now();
      const { account, actor, via } = session
        ? await this.signedIn(manager, invitation, session)
        : await this.signUp(manager, invitation, body, passwordHash, now);
      const membership =
        (await this.memberships.findOf(manager, account.id, invitation.organizationId)) ??
        (await this.memberships.add(
          manager,
          invitation.organizationId,
          account.id,
          invitation.role,
          now,
        ));
      await manager.getRepository(Invitation).update({ id: invitation.id }, { acceptedAt: now });
      await this.record(manager, actor, invitation, 'invitations.accept', {
        account_id: account.id,
        membership_id: membership.id,
        via,
      });
      return {
        organization_id: invitation.organizationId,
        account_id: account.id,
        membership_id: membership.id,
        role: membership.role,
      };
    });
  }

  /** Anyone holding the token may decline: it was mailed to the invited address. */
  async decline(token: string) {
    return this.dataSource.transaction(async (manager) => {
      const { invitation } = await this.pending(manager, token, true);
      await manager
        .getRepository(Invitation)
        .update({ id: invitation.id }, { declinedAt: this.clock.now() });
      await this.record(manager, NO_ACCOUNT, invitation, 'invitations.decline', {
        via: 'invitation_token',
      });
      return { declined: true };
    });
  }

  /** The signed-in account, when it holds the invited address (same comparison as logins). */
  private async signedIn(
    manager: EntityManager,
    invitation: Invitation,
    session: InviteeSession,
  ): Promise<{ account: Account; actor: AuditActor; via: 'session' }> {
    const holder = await this.accounts.findByLogin(invitation.email, manager);
    if (holder?.id !== session.account.id) {
      throw new IdentityException(
        IdentityErrorCode.InvitationEmailMismatch,
        'This invitation was sent to another e-mail address: sign in as that address to accept it',
      );
    }
    return { account: session.account, actor: session.actor, via: 'session' };
  }

  /**
   * Signing up through the invitation: creates the account verified, or takes over an
   * unverified registration of the address. A verified account must sign in instead (401).
   */
  private async signUp(
    manager: EntityManager,
    invitation: Invitation,
    body: AcceptInvitationBody,
    passwordHash: string | null,
    now: Date,
  ): Promise<{ account: Account; actor: AuditActor; via: 'signup' | 'takeover' }> {
    const holder = await this.accounts.findByLogin(invitation.email, manager);
    if (holder && !(await this.inviteeAccounts.lockUnverified(manager, holder.id))) {
      throw new IdentityException(
        IdentityErrorCode.Unauthorized,
        `An account with this address exists: sign in as ${invitation.email} to accept`,
        { headers: { 'WWW-Authenticate': 'Bearer' } },
      );
    }
    const fields = { name: requireSignupFields(body, passwordHash), passwordHash: passwordHash! };
    const account = holder
      ? await this.inviteeAccounts.takeOver(manager, holder.id, fields, now)
      : await this.accounts
          .create(
            manager,
            { login: invitation.email, ...fields, emailVerifiedAt: now, isPlatformAdmin: false },
            now,
          )
          .catch((error: unknown) => {
            if ((error as { code?: string }).code !== '23505') throw error;
            throw new IdentityException(
              IdentityErrorCode.LoginTaken,
              'An account with this login was just created: sign in as it to accept',
            );
          });
    return {
      account,
      actor: { accountId: account.id, credential: null },
      via: holder ? 'takeover' : 'signup',
    };
  }

  private async record(
    manager: EntityManager,
    actor: AuditActor,
    invitation: Invitation,
    action: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.audit.record(
      {
        actor,
        action,
        organizationId: invitation.organizationId,
        projectId: null,
        target: { type: 'invitation', id: invitation.id },
        details: { email: invitation.email, role: invitation.role, ...details },
      },
      manager,
    );
  }

  private async sendInvitation(inviter: string, invitation: Invitation, token: string) {
    const organization = await this.dataSource
      .getRepository(Organization)
      .findOneByOrFail({ id: invitation.organizationId });
    const link = `${this.config.publicUrl}/invite/${encodeURIComponent(token)}`;
    await this.mailer.send({
      to: invitation.email,
      subject: `You are invited to join ${organization.name}`,
      text: [
        `${inviter} invited you to join ${organization.name} as ${invitation.role}.`,
        '',
        `Accept or decline here: ${link}`,
        '',
        `Invitation token: ${token}`,
        '',
        `The invitation is valid for ${INVITATION_TTL_DAYS} days.`,
      ].join('\n'),
    });
  }

  /** The invitation behind a token: 404 unknown, 410 once used, declined or expired. */
  private async pending(
    manager: EntityManager,
    token: string,
    lock = false,
  ): Promise<{ invitation: Invitation; organization: Organization }> {
    const query = manager
      .getRepository(Invitation)
      .createQueryBuilder('i')
      .where('i.token_hash = :hash', { hash: sha256(token) });
    if (lock) query.setLock('pessimistic_write');
    const invitation = await query.getOne();
    if (!invitation) throw notFound('Invitation');
    if (invitation.acceptedAt || invitation.declinedAt) {
      throw new IdentityException(
        IdentityErrorCode.InvitationUsed,
        `This invitation was already ${invitation.acceptedAt ? 'accepted' : 'declined'}`,
      );
    }
    if (invitation.expiresAt <= this.clock.now()) {
      throw new IdentityException(
        IdentityErrorCode.InvitationExpired,
        'This invitation has expired',
      );
    }
    const organization = await manager
      .getRepository(Organization)
      .findOneByOrFail({ id: invitation.organizationId });
    return { invitation, organization };
  }
}
