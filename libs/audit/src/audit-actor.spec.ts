import { describe, expect, it } from '@jest/globals';
import type { AuthenticatedRequest, Principal } from '@platform/identity';
import { auditActorOf } from './audit-actor.js';

function request(principal: Partial<Principal>) {
  return {
    headers: {},
    principal: { account: { id: 'account-1' }, token: null, session: null, ...principal },
  } as unknown as AuthenticatedRequest;
}

describe('audit actor', () => {
  it('names a session by its JWT id, as a cookie or as a bearer', () => {
    const session = { id: 'session-1', issuedAt: new Date() };
    expect(auditActorOf(request({ via: 'cookie', session }))).toEqual({
      accountId: 'account-1',
      credential: { kind: 'session', id: 'session-1' },
    });
    expect(auditActorOf(request({ via: 'bearer', session }))).toEqual({
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

  it('refuses a request without a principal', () => {
    expect(() => auditActorOf({ headers: {} } as unknown as AuthenticatedRequest)).toThrow(
      'auditActorOf used on a route without @Authenticated',
    );
  });
});
