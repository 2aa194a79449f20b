import { parse as parseCookies, serialize } from 'cookie';
import type { Request, Response } from 'express';
import { CSRF_COOKIE, SESSION_COOKIE, STATIC_TOKEN_PREFIX } from '../access/credentials.js';
import { randomSecret } from './secrets.js';
import { SESSION_TTL_SECONDS } from './session-tokens.js';

const COOKIE = { path: '/', secure: true, sameSite: 'lax' as const };

/**
 * Hands a new session to the client: the JWT in the Authorization header, and for browsers the
 * session cookie (HttpOnly) and a fresh CSRF cookie (readable).
 */
export function sendSession(response: Response, jwt: string): void {
  const cookie = { ...COOKIE, maxAge: SESSION_TTL_SECONDS };
  response.setHeader('Authorization', `Bearer ${jwt}`);
  response.setHeader('Access-Control-Expose-Headers', 'Authorization');
  response.setHeader('Set-Cookie', [
    serialize(SESSION_COOKIE, jwt, { ...cookie, httpOnly: true }),
    serialize(CSRF_COOKIE, randomSecret('', 24), cookie),
  ]);
  response.setHeader('Cache-Control', 'no-store');
}

/** Tells the browser to drop both session cookies. */
export function clearSession(response: Response): void {
  const expired = { ...COOKIE, expires: new Date(0) };
  response.setHeader('Set-Cookie', [
    serialize(SESSION_COOKIE, '', { ...expired, httpOnly: true }),
    serialize(CSRF_COOKIE, '', expired),
  ]);
}

/**
 * Every session JWT a request presents: the bearer (or X-Access-Token) unless it is a static
 * token, and the session cookie. A logout ends them all, whichever one the request
 * authenticates with.
 */
export function presentedSessions(request: Request): string[] {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization?.trim() ?? '')?.[1];
  const accessToken = request.headers['x-access-token'];
  const cookie = parseCookies(request.headers.cookie ?? '')[SESSION_COOKIE];
  const presented = [bearer, typeof accessToken === 'string' ? accessToken.trim() : '', cookie];
  return [
    ...new Set(
      presented.filter(
        (value): value is string => !!value && !value.startsWith(STATIC_TOKEN_PREFIX),
      ),
    ),
  ];
}
