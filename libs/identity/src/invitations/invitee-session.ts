import { Injectable } from '@nestjs/common';
import type { AuditActor } from '@platform/audit';
import type { Request } from 'express';
import {
  CSRF_HEADER,
  readCredential,
  STATIC_TOKEN_PREFIX,
  UNSAFE_METHODS,
} from '../access/credentials.js';
import { CredentialVerifier } from '../auth/credential-verifier.js';
import { safeEqual } from '../auth/secrets.js';
import type { Account } from '../entities.js';
import { IdentityErrorCode, IdentityException } from '../identity-exception.js';

/** Who accepts an invitation on a public route: the signed-in account and its audit actor. */
export interface InviteeSession {
  account: Account;
  actor: AuditActor;
}

/**
 * The optional login session of the public invitation routes. No credential at all is no
 * session (the invitee may sign up through the invitation); any credential presented must be
 * a valid login session, checked as the access guard checks it: an invalid or expired one
 * answers 401, a static token 403 `interactive_session_required` (an invitation makes a
 * person a member, not a machine), a cookie without its CSRF header 403 `invalid_csrf_token`.
 */
@Injectable()
export class InviteeSessions {
  constructor(private readonly credentials: CredentialVerifier) {}

  async resolve(request: Request): Promise<InviteeSession | null> {
    const credential = readCredential(request);
    if (credential.kind === 'none') return null;
    if (credential.kind === 'bearer' && credential.value.startsWith(STATIC_TOKEN_PREFIX)) {
      throw new IdentityException(
        IdentityErrorCode.InteractiveSessionRequired,
        'Accepting an invitation needs a login session, not a static token',
      );
    }
    const verified = await this.credentials.session(credential.value);
    if (!verified) {
      throw new IdentityException(IdentityErrorCode.Unauthorized, 'Invalid or expired session', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
    if (credential.kind === 'cookie' && UNSAFE_METHODS.has(request.method)) {
      const header = request.headers[CSRF_HEADER];
      if (
        !credential.csrfCookie ||
        typeof header !== 'string' ||
        !safeEqual(header, credential.csrfCookie)
      ) {
        throw new IdentityException(
          IdentityErrorCode.InvalidCsrfToken,
          'Missing or wrong X-CSRF-Token header',
        );
      }
    }
    const kind = credential.kind === 'cookie' ? 'session' : 'jwt';
    return {
      account: verified.account,
      actor: {
        accountId: verified.account.id,
        credential: { kind, id: verified.session.id },
      },
    };
  }
}
