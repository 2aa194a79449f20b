import { Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR, DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@platform/audit';
import { MailModule } from '@platform/mail';
import { RateLimitsModule } from '@platform/rate-limits';
import { AccessGuard } from './access/access.guard.js';
import { IdempotencyInterceptor } from './access/idempotency.interceptor.js';
import { AccessPolicyVerifier } from './access/access-policy.verifier.js';
import { ProjectReadAhead } from './access/project-read-ahead.js';
import { AccountsController } from './accounts/accounts.controller.js';
import { AccountsRepository } from './accounts/accounts.repository.js';
import { CredentialVerifier } from './auth/credential-verifier.js';
import { LoginThrottle } from './auth/login-throttle.js';
import { LoginService } from './auth/login.service.js';
import { Reauthentication } from './auth/reauthentication.js';
import { SessionTokens } from './auth/session-tokens.js';
import { SessionsRepository } from './auth/sessions.repository.js';
import { EmailChangeController } from './email-change/email-change.controller.js';
import { EmailChangeRepository } from './email-change/email-change.repository.js';
import { EmailChangeService } from './email-change/email-change.service.js';
import { IDENTITY_ENTITIES } from './entities.js';
import { InvitationsController } from './invitations/invitations.controller.js';
import { InvitationsService } from './invitations/invitations.service.js';
import { InviteeAccountsRepository } from './invitations/invitee-accounts.repository.js';
import { InviteeSessions } from './invitations/invitee-session.js';
import { MembershipsRepository } from './organizations/memberships.repository.js';
import { MembershipsService } from './organizations/memberships.service.js';
import { OrganizationsController } from './organizations/organizations.controller.js';
import { OrganizationsService } from './organizations/organizations.service.js';
import { ProjectsRepository } from './organizations/projects.repository.js';
import { PasswordChangeService } from './passwords/password-change.service.js';
import { PasswordResetRepository } from './passwords/password-reset.repository.js';
import { PasswordResetService } from './passwords/password-reset.service.js';
import { PasswordsController } from './passwords/passwords.controller.js';
import { LegalRepository } from './signup/legal.repository.js';
import { SignupController } from './signup/signup.controller.js';
import { SignupService } from './signup/signup.service.js';
import { LoginOriginsRepository } from './security/login-origins.repository.js';
import { SecurityNotices } from './security/security-notices.js';
import { TokensController } from './tokens/tokens.controller.js';
import { TokensRepository } from './tokens/tokens.repository.js';
import { TokensService } from './tokens/tokens.service.js';

/**
 * Axis A: accounts, sessions and passwords, organizations, projects, memberships, tokens,
 * invitations, and the global AccessGuard that every route passes. Security events (new login
 * origins, password, e-mail address, token, phone and role changes, locked logins) are told to
 * the accounts through SecurityNotices: a queued job that the notifications worker delivers,
 * since the notifications library depends on this one.
 */
import { PasswordHasher, passwordHasherProvider } from './auth/passwords.js';

@Module({
  imports: [
    TypeOrmModule.forFeature(IDENTITY_ENTITIES),
    DiscoveryModule,
    MailModule,
    AuditModule,
    RateLimitsModule,
  ],
  controllers: [
    SignupController,
    AccountsController,
    PasswordsController,
    EmailChangeController,
    OrganizationsController,
    TokensController,
    InvitationsController,
  ],
  providers: [
    AccountsRepository,
    MembershipsRepository,
    ProjectsRepository,
    TokensRepository,
    LegalRepository,
    SessionTokens,
    SessionsRepository,
    CredentialVerifier,
    passwordHasherProvider,
    LoginThrottle,
    LoginService,
    Reauthentication,
    PasswordResetRepository,
    PasswordChangeService,
    PasswordResetService,
    EmailChangeRepository,
    EmailChangeService,
    SignupService,
    OrganizationsService,
    MembershipsService,
    TokensService,
    InvitationsService,
    InviteeAccountsRepository,
    InviteeSessions,
    AccessPolicyVerifier,
    ProjectReadAhead,
    LoginOriginsRepository,
    SecurityNotices,
    { provide: APP_GUARD, useClass: AccessGuard },
    { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
  ],
  exports: [
    PasswordHasher,
    AccountsRepository,
    MembershipsRepository,
    ProjectsRepository,
    TokensRepository,
    TokensService,
    SessionTokens,
    CredentialVerifier,
    ProjectReadAhead,
    SecurityNotices,
  ],
})
export class IdentityModule {}
