import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { SecurityNotices } from '@platform/identity';
import { RATE_LIMITS, RateLimiter } from '@platform/rate-limits';
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { PhoneDispatcher } from './phone-dispatcher.js';
import { PhoneErrorCode, PhoneException } from './phone-exception.js';
import { PhoneVerificationRepository } from './phone-verification.repository.js';

export const PHONE_CODE_TTL_MINUTES = 10;
export const PHONE_CODE_MAX_ATTEMPTS = 5;

/** A uniformly random 6-digit code, leading zeros kept. */
export function generatePhoneCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/**
 * A code has only a million values, so a plain hash would fall to brute force if the table
 * leaked: it is keyed with SECRET_KEY and bound to the account and the number.
 */
export function hashPhoneCode(
  secretKey: string,
  accountId: string,
  phoneNumber: string,
  code: string,
): string {
  return createHmac('sha256', secretKey)
    .update(`phone-verification:${accountId}:${phoneNumber}:${code}`)
    .digest('hex');
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

type VerifyOutcome =
  | { kind: 'none' }
  | { kind: 'expired' }
  | { kind: 'wrong'; attemptsLeft: number }
  | { kind: 'verified'; phoneNumber: string };

/**
 * Setting a phone number: the new number stays pending (the account keeps its old one) until
 * the 6-digit code sent to it by SMS is entered, within 10 minutes and 5 attempts.
 */
@Injectable()
export class PhoneVerificationService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly verifications: PhoneVerificationRepository,
    private readonly phone: PhoneDispatcher,
    private readonly limits: RateLimiter,
    private readonly notices: SecurityNotices,
  ) {}

  /**
   * Starts (or restarts) the verification of `phoneNumber` and texts it the code. Counted per
   * account and per number (429 `rate_limited`): a restart also gives five fresh attempts at
   * the code, so this limit is what bounds guessing too.
   */
  async request(
    accountId: string,
    phoneNumber: string,
  ): Promise<{ phone_number: string; expires_at: Date }> {
    if (!this.config.phone) {
      throw new PhoneException(
        PhoneErrorCode.ProviderNotConfigured,
        'Phone numbers cannot be verified: no SMS provider is configured',
      );
    }
    await this.limits.take(
      { rule: RATE_LIMITS.phoneCodesPerAccount, key: accountId },
      { rule: RATE_LIMITS.phoneCodesPerNumber, key: phoneNumber },
    );
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + PHONE_CODE_TTL_MINUTES * 60_000);
    const code = generatePhoneCode();
    await this.verifications.savePending(
      accountId,
      {
        phoneNumber,
        codeHash: hashPhoneCode(this.config.secretKey, accountId, phoneNumber, code),
        expiresAt,
      },
      now,
    );
    await this.phone.sms(
      phoneNumber,
      `Your verification code is ${code}. It expires in ${PHONE_CODE_TTL_MINUTES} minutes.`,
    );
    return { phone_number: phoneNumber, expires_at: expiresAt };
  }

  /** Checks the code; a match makes the pending number the account's verified one. */
  async verify(
    accountId: string,
    code: string,
  ): Promise<{ phone_number: string; phone_verified: true }> {
    const now = this.clock.now();
    const outcome = await this.verifications.attempt<VerifyOutcome>(
      accountId,
      (pending) => {
        if (!pending) return { apply: 'none', result: { kind: 'none' } };
        if (pending.expiresAt <= now || pending.attempts >= PHONE_CODE_MAX_ATTEMPTS)
          return { apply: 'none', result: { kind: 'expired' } };
        const candidate = hashPhoneCode(
          this.config.secretKey,
          accountId,
          pending.phoneNumber,
          code,
        );
        if (sameHash(candidate, pending.codeHash))
          return {
            apply: 'verify',
            result: { kind: 'verified', phoneNumber: pending.phoneNumber },
          };
        const attemptsLeft = PHONE_CODE_MAX_ATTEMPTS - pending.attempts - 1;
        return { apply: 'count_attempt', result: { kind: 'wrong', attemptsLeft } };
      },
      now,
    );
    switch (outcome.kind) {
      case 'none':
        throw new PhoneException(
          PhoneErrorCode.NotFound,
          'No phone verification is pending: set a phone number first',
        );
      case 'expired':
        throw new PhoneException(
          PhoneErrorCode.VerificationExpired,
          'The verification code has expired or too many wrong codes were entered: set the phone number again to get a new code',
        );
      case 'wrong':
        throw new PhoneException(
          PhoneErrorCode.InvalidCode,
          outcome.attemptsLeft > 0
            ? `The code is not correct: ${outcome.attemptsLeft} attempt(s) left`
            : 'The code is not correct and no attempts are left: set the phone number again to get a new code',
          { details: { attempts_left: outcome.attemptsLeft } },
        );
      case 'verified':
        this.notices.tell({
          event: 'phone_changed',
          accountId,
          organizationId: null,
          path: '/accounts/me',
          details: { phone_number_ending: outcome.phoneNumber.slice(-4) },
        });
        return { phone_number: outcome.phoneNumber, phone_verified: true };
    }
  }

  /** Removes the account's number and any pending verification. */
  async remove(accountId: string): Promise<void> {
    if (await this.verifications.remove(accountId, this.clock.now()))
      this.notices.tell({
        event: 'phone_removed',
        accountId,
        organizationId: null,
        path: '/accounts/me',
      });
  }
}
