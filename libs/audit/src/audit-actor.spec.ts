import { describe, expect, it } from '@jest/globals';
import type { AuthenticatedRequest, Principal } from '@platform/identity';
import { auditActorOf, sessionIdOf } from './audit-actor.js';

/** An unsigned JWT shape: only its claims matter here (the guard verified the real ones). */
function jwt(claims: Record<string, unknown>): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256' })}.${part(claims)}.signature`;
}

function request(principal: Partial<Principal>, headers: Record<string, string> = {}) {
  return {
    headers,
    principal: { account: { id: 'account-1' }, token: null, ...principal },
  } as unknown as AuthenticatedRequest;
}

describe('audit actor', () => {
  it('names a session by its JWT id, as a cookie or as a bearer', () => {
    const token = jwt({ sub: 'account-1', jti: 'session-1' });
    expect(auditActorOf(request({ via: 'cookie' }, { cookie: `_hq_session=${token}` }))).toEqual({
      accountId: 'account-1',
      credential: { kind: 'session', id: 'session-1' },
    });
    expect(auditActorOf(request({ via: 'bearer' }, { authorization: `Bearer ${token}` }))).toEqual({
      accountId: 'account-1',
      credential: { kind: 'jwt', id: 'session-1' },
    });
  });

  it('names a static token by its id and kind', () => {
    const token = { id: 'token-1', kind: 'api' } as Principal['token'];
    expect(auditActorOf(request({ via: 'token', token }))).toEqual({
      accountId: 'account-1',
      credential: { kind: 'api_token', id: 'token-1' },
    });
    const ingest = { id: 'token-2', kind: 'ingest' } as Principal['token'];
    expect(auditActorOf(request({ via: 'token', token: ingest })).credential).toEqual({
      kind: 'ingest_token',
      id: 'token-2',
    });
  });

  it('names a JWT without an id by a digest, never by its value', () => {
    const token = jwt({ sub: 'account-1' });
    const id = sessionIdOf(token);
    expect(id).toMatch(/^sha256:[0-9a-f]{32}$/);
    expect(sessionIdOf(token)).toBe(id);
    expect(sessionIdOf('not a jwt')).toMatch(/^sha256:[0-9a-f]{32}$/);
  });

  it('refuses a request without a principal', () => {
    expect(() => auditActorOf({ headers: {} } as unknown as AuthenticatedRequest)).toThrow(
      'auditActorOf used on a route without @Authenticated',
    );
  });
});
