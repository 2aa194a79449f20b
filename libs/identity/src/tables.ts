import type { TableOwnership } from '@platform/database';

/** The tables only identity writes. */
export const IDENTITY_TABLES: TableOwnership = {
  library: 'identity',
  tables: [
    'account',
    'account_email_change',
    'account_login_origin',
    'api_token',
    'email_verification',
    'invitation',
    'legal_consent',
    'legal_document',
    'membership',
    'organization',
    'password_reset',
    'project',
    'revoked_session',
  ],
};
