import { defineException } from '@platform/core';

export enum PhoneErrorCode {
  /** No verification is pending for the account. */
  NotFound = 'not_found',
  /** The code does not match; `details.attempts_left` says how many tries remain. */
  InvalidCode = 'invalid_code',
  /** The code expired or its attempts are used up: request a new one. */
  VerificationExpired = 'verification_expired',
  /** No SMS provider is configured, so no code could ever arrive. */
  ProviderNotConfigured = 'phone_provider_not_configured',
}

export const PhoneException = defineException<PhoneErrorCode>('notifications', {
  [PhoneErrorCode.NotFound]: 404,
  [PhoneErrorCode.InvalidCode]: 422,
  [PhoneErrorCode.VerificationExpired]: 422,
  [PhoneErrorCode.ProviderNotConfigured]: 503,
});
