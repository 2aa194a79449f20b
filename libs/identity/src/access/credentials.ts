import { parse as parseCookies } from 'cookie';
import type { Request } from 'express';

export const SESSION_COOKIE = '_hq_session';
export const CSRF_COOKIE = '_hq_csrf';
export const CSRF_HEADER = 'x-csrf-token';
export const STATIC_TOKEN_PREFIX = 'hq_';

export type Credential =
  | { kind: 'bearer'; value: string }
  | { kind: 'cookie'; value: string; csrfCookie: string | undefined }
  | { kind: 'none' };

/** The bearer (or `X-Access-Token`) wins over cookies, so API clients never meet CSRF checks. */
export function readCredential(request: Request): Credential {
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
    return match ? { kind: 'bearer', value: match[1] } : { kind: 'bearer', value: '' };
  }
  const accessToken = request.headers['x-access-token'];
  if (typeof accessToken === 'string' && accessToken.trim()) {
    return { kind: 'bearer', value: accessToken.trim() };
  }
  const cookies = parseCookies(request.headers.cookie ?? '');
  const session = cookies[SESSION_COOKIE];
  if (session) return { kind: 'cookie', value: session, csrfCookie: cookies[CSRF_COOKIE] };
  return { kind: 'none' };
}

export const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
