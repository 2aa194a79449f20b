import { defineException } from '@platform/core';

export enum IdentityErrorCode {
  Unauthorized = 'unauthorized',
  InvalidCredentials = 'invalid_credentials',
  EmailNotVerified = 'email_not_verified',
  InvalidCsrfToken = 'invalid_csrf_token',
  Forbidden = 'forbidden',
  InsufficientScope = 'insufficient_scope',
  OrganizationRequired = 'organization_required',
  InteractiveSessionRequired = 'interactive_session_required',
  NotFound = 'not_found',
  LoginTaken = 'login_taken',
  AlreadyMember = 'already_member',
  LegalConsentInvalid = 'legal_consent_invalid',
  InvalidVerificationToken = 'invalid_verification_token',
  LastAdmin = 'last_admin',
  ValidationFailed = 'validation_failed',
  InvitationExpired = 'invitation_expired',
  InvitationUsed = 'invitation_used',
  TooManyAttempts = 'too_many_attempts',
  StaticTokenCrossProject = 'static_token_cross_project',
  RoleCeiling = 'role_ceiling',
  InvitationEmailMismatch = 'invitation_email_mismatch',
}

export const IdentityException = defineException<IdentityErrorCode>('identity', {
  [IdentityErrorCode.Unauthorized]: 401,
  [IdentityErrorCode.InvalidCredentials]: 401,
  [IdentityErrorCode.EmailNotVerified]: 403,
  [IdentityErrorCode.InvalidCsrfToken]: 403,
  [IdentityErrorCode.Forbidden]: 403,
  [IdentityErrorCode.InsufficientScope]: 403,
  [IdentityErrorCode.OrganizationRequired]: 403,
  [IdentityErrorCode.InteractiveSessionRequired]: 403,
  [IdentityErrorCode.NotFound]: 404,
  [IdentityErrorCode.LoginTaken]: 409,
  [IdentityErrorCode.AlreadyMember]: 409,
  [IdentityErrorCode.LegalConsentInvalid]: 422,
  [IdentityErrorCode.InvalidVerificationToken]: 422,
  [IdentityErrorCode.LastAdmin]: 422,
  [IdentityErrorCode.ValidationFailed]: 422,
  [IdentityErrorCode.InvitationExpired]: 410,
  [IdentityErrorCode.InvitationUsed]: 410,
  [IdentityErrorCode.TooManyAttempts]: 429,
  [IdentityErrorCode.StaticTokenCrossProject]: 403,
  [IdentityErrorCode.RoleCeiling]: 403,
  [IdentityErrorCode.InvitationEmailMismatch]: 403,
});

export const notFound = (what = 'Resource'): InstanceType<typeof IdentityException> =>
  new IdentityException(IdentityErrorCode.NotFound, `${what} not found`);
