import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { type AuthenticatedRequest, readCredential, sha256 } from '@platform/identity';
import { decodeJwt } from 'jose';

/**
 * The credential an action was taken with: `session` is the login session's cookie, `jwt` the
 * same kind of session presented as a bearer (both named by the JWT's id), `api_token` and
 * `ingest_token` a static token named by its id. Never the secret itself.
 */
export type CredentialKind = 'session' | 'jwt' | 'api_token' | 'ingest_token';

export interface AuditCredential {
  kind: CredentialKind;
  id: string;
}

/** Who acts: an account through a credential, or the platform itself (both null). */
export interface AuditActor {
  accountId: string | null;
  credential: AuditCredential | null;
}

/**
 * The id of a session JWT: its `jti` claim. The guard has verified the token already; a token
 * without one (none are issued) is named by a digest instead, never by its value.
 */
export function sessionIdOf(jwt: string): string {
  try {
    const { jti } = decodeJwt(jwt);
    if (typeof jti === 'string' && jti !== '') return jti;
  } catch {
    // Not decodable: fall through to the digest.
  }
  return `sha256:${sha256(jwt).slice(0, 32)}`;
}

/** The actor of an authenticated request, from the principal the access guard established. */
export function auditActorOf(request: AuthenticatedRequest): AuditActor {
  const principal = request.principal;
  if (!principal) throw new Error('auditActorOf used on a route without @Authenticated');
  if (principal.token) {
    return {
      accountId: principal.account.id,
      credential: {
        kind: principal.token.kind === 'ingest' ? 'ingest_token' : 'api_token',
        id: principal.token.id,
      },
    };
  }
  const credential = readCredential(request);
  const jwt = credential.kind === 'none' ? '' : credential.value;
  return {
    accountId: principal.account.id,
    credential: { kind: principal.via === 'cookie' ? 'session' : 'jwt', id: sessionIdOf(jwt) },
  };
}

/** The `AuditActor` of the request (routes with `@Authenticated` only). */
export const CurrentActor = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  auditActorOf(context.switchToHttp().getRequest<AuthenticatedRequest>()),
);
