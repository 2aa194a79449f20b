import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { AuthenticatedRequest, Principal } from '@platform/identity';

/**
 * The credential an action was taken with: `session` is the login session's cookie, `jwt` the
 * same kind of session presented as a bearer (both named by the JWT's id), `api_token` and
 * `ingest_token` a static token named by its id. Never the secret itself. Only types come
 * from the identity library, which records audit entries itself (token and password changes).
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

/** The actor behind a principal the access guard established. */
export function actorOf(principal: Principal): AuditActor {
  if (principal.token) {
    return {
      accountId: principal.account.id,
      credential: {
        kind: principal.token.kind === 'ingest' ? 'ingest_token' : 'api_token',
        id: principal.token.id,
      },
    };
  }
  if (!principal.session) throw new Error('a principal without a token has no session');
  return {
    accountId: principal.account.id,
    credential: {
      kind: principal.via === 'cookie' ? 'session' : 'jwt',
      id: principal.session.id,
    },
  };
}

/** The actor of an authenticated request. */
export function auditActorOf(request: AuthenticatedRequest): AuditActor {
  const principal = request.principal;
  if (!principal) throw new Error('auditActorOf used on a route without @Authenticated');
  return actorOf(principal);
}

/** The `AuditActor` of the request (routes with `@Authenticated` only). */
export const CurrentActor = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  auditActorOf(context.switchToHttp().getRequest<AuthenticatedRequest>()),
);
