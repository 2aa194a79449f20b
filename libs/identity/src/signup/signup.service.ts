import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { Mailer } from '@platform/mail';
import { RATE_LIMITS, RateLimiter } from '@platform/rate-limits';
import { DataSource } from 'typeorm';
import { AccountsRepository } from '../accounts/accounts.repository.js';
import { loginKey } from '../accounts/login-key.js';
import { PasswordHasher } from '../auth/passwords.js';
import { randomSecret, sha256 } from '../auth/secrets.js';
import { Organization } from '../entities.js';
import { IdentityErrorCode, IdentityException } from '../identity-exception.js';
import { MembershipsRepository } from '../organizations/memberships.repository.js';
import { LegalRepository } from './legal.repository.js';
import type { SignupBody } from './signup.dto.js';

export const VERIFICATION_TTL_HOURS = 48;
export const SIGNUP_SUCCESS = 'Account created. We sent you an e-mail to verify your address.';

const CONSENT_INVALID =
  'The terms were updated or the consent data is invalid. Please reload the page and accept the current terms.';

@Injectable()
export class SignupService {
  constructor(
    private readonly passwords: PasswordHasher,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly accounts: AccountsRepository,
    private readonly memberships: MembershipsRepository,
    private readonly legal: LegalRepository,
    private readonly mailer: Mailer,
    private readonly limits: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Creates the account, its organization, the admin membership and the consent, atomically.
   * Counted per client address before anything else (429 `rate_limited`).
   */
  async signup(body: SignupBody, address: string | null): Promise<{ success: string }> {
    await this.limits.take(this.limits.perAddress(RATE_LIMITS.signupPerAddress, address));
    const passwordHash = await this.passwords.hash(body.password);
    const token = randomSecret();
    const now = this.clock.now();
    await this.dataSource.transaction(async (manager) => {
      const documents = await this.legal.current(manager);
      this.assertConsent(body as unknown as Record<string, unknown>, documents);
      if (await this.accounts.findByLogin(body.login, manager)) throw loginTaken();
      const account = await this.accounts
        .create(
          manager,
          {
            login: body.login,
            name: body.name.trim(),
            passwordHash,
            emailVerifiedAt: null,
            isPlatformAdmin: false,
          },
          now,
        )
        .catch((error: unknown) => {
          throw (error as { code?: string }).code === '23505' ? loginTaken() : error;
        });
      const organization = await manager
        .getRepository(Organization)
        .save({ name: body.organization_name.trim(), createdAt: now, updatedAt: now });
      await this.memberships.add(manager, organization.id, account.id, 'admin', now);
      await this.legal.recordConsent(manager, account.id, documents, now);
      const expiresAt = new Date(now.getTime() + VERIFICATION_TTL_HOURS * 3600_000);
      await this.accounts.createVerification(manager, account.id, sha256(token), expiresAt, now);
    });
    await this.sendVerification(body.login.trim(), body.name.trim(), token);
    return { success: SIGNUP_SUCCESS };
  }

  async verify(token: string): Promise<{ verified: true }> {
    const accountId = await this.accounts.consumeVerification(sha256(token), this.clock.now());
    if (!accountId) {
      throw new IdentityException(
        IdentityErrorCode.InvalidVerificationToken,
        'The verification token is unknown, used or expired',
      );
    }
    return { verified: true };
  }

  /**
   * Sends a fresh token to an unverified account; answers the same whether or not one exists,
   * and counts the request per login and per client address either way.
   */
  async resend(login: string, address: string | null): Promise<{ success: string }> {
    await this.limits.take(
      { rule: RATE_LIMITS.verificationMailPerLogin, key: loginKey(login) },
      this.limits.perAddress(RATE_LIMITS.verificationMailPerAddress, address),
    );
    const account = await this.accounts.findByLogin(login);
    if (account && !account.emailVerifiedAt) {
      const token = randomSecret();
      const now = this.clock.now();
      const expiresAt = new Date(now.getTime() + VERIFICATION_TTL_HOURS * 3600_000);
      await this.accounts.createVerification(
        this.dataSource.manager,
        account.id,
        sha256(token),
        expiresAt,
        now,
      );
      await this.sendVerification(account.login, account.name, token);
    }
    return {
      success: 'If the account exists and is unverified, a new verification e-mail is on its way.',
    };
  }

  private async sendVerification(login: string, name: string, token: string): Promise<void> {
    const link = `${this.config.publicUrl}/verify-email?token=${encodeURIComponent(token)}`;
    await this.mailer.send({
      to: login,
      subject: 'Verify your e-mail address',
      text: [
        `Hello ${name},`,
        '',
        'please confirm your e-mail address by opening this link:',
        link,
        '',
        `Verification token: ${token}`,
        '',
        `The link is valid for ${VERIFICATION_TTL_HOURS} hours and can be used once.`,
      ].join('\n'),
    });
  }

  private assertConsent(
    body: Record<string, unknown>,
    documents: Array<{ docType: string; version: number; contentHash: string }>,
  ): void {
    for (const document of documents) {
      const version = body[`legal_${document.docType}_version`];
      const hash = body[`legal_${document.docType}_hash`];
      const versionNumber =
        typeof version === 'string' && /^\d+$/.test(version) ? Number(version) : version;
      if (versionNumber !== document.version || hash !== document.contentHash) {
        throw new IdentityException(IdentityErrorCode.LegalConsentInvalid, CONSENT_INVALID, {
          details: { doc_type: document.docType, current_version: document.version },
        });
      }
    }
  }
}

function loginTaken(): InstanceType<typeof IdentityException> {
  return new IdentityException(
    IdentityErrorCode.LoginTaken,
    'An account with this login already exists',
  );
}
