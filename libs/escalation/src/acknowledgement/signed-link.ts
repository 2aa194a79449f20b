import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppException } from '@platform/core';
import { EscalationErrorCode, EscalationException } from '../escalation-exception.js';

/**
 * Signed, time-limited references that stand in for a login where the recipient of a page
 * answers it: the e-mail acknowledgement link and the callback of a phone page.
 *
 * A token is `base64url(JSON claims) + '.' + base64url(HMAC-SHA256(SECRET_KEY, message))`,
 * compared in constant time. For the e-mail link the message is the claims part itself; any
 * other purpose prefixes it with `<purpose>:`, so a token minted for one purpose never
 * verifies for another (an e-mail link cannot be replayed as a phone answer, nor the reverse).
 * `t` (issued, epoch seconds) is in every token: its age decides expiry.
 */
export type SignedPurpose = 'ack_link' | 'phone_ack';

/** What the e-mail acknowledgement link encodes: alert, recipient account, instance. */
export interface AckLinkClaims {
  /** alert id */
  a: string;
  /** account id */
  u: string;
  /** escalation instance id */
  i: string;
  /** issued at, epoch seconds */
  t: number;
}

/** What the callback of a phone page encodes: the page. */
export interface PhoneAckClaims {
  /** escalation page id */
  p: string;
  /** issued at, epoch seconds */
  t: number;
}

interface ClaimsOf {
  ack_link: AckLinkClaims;
  phone_ack: PhoneAckClaims;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const SHAPES: { [P in SignedPurpose]: (claims: Record<string, unknown>) => boolean } = {
  ack_link: (c) => isUuid(c.a) && isUuid(c.u) && isUuid(c.i) && Number.isSafeInteger(c.t),
  phone_ack: (c) => isUuid(c.p) && Number.isSafeInteger(c.t),
};

export function signToken<P extends SignedPurpose>(
  secret: string,
  purpose: P,
  claims: ClaimsOf[P],
): string {
  const payload = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
  return `${payload}.${mac(secret, purpose, payload).toString('base64url')}`;
}

/**
 * The claims of a genuine token of this purpose. Anything else (wrong signature, another
 * purpose, malformed) → 401 `invalid_signed_token`; older than `ttlSeconds` → 401
 * `signed_link_expired` (checked only once the signature holds, so expiry says nothing about
 * forged tokens).
 */
export function verifyToken<P extends SignedPurpose>(
  secret: string,
  purpose: P,
  token: string,
  now: Date,
  ttlSeconds: number,
): ClaimsOf[P] {
  const parts = token.split('.');
  if (parts.length !== 2 || !isBase64Url(parts[0]) || !isBase64Url(parts[1])) throw invalid();
  const [payload, signature] = parts;
  // Compared as text: base64url has several spellings of the same bytes, a token has one.
  const expected = Buffer.from(mac(secret, purpose, payload).toString('base64url'));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!claims || typeof claims !== 'object' || !SHAPES[purpose](claims as Record<string, unknown>))
    throw invalid();
  const typed = claims as ClaimsOf[P];
  if (Math.floor(now.getTime() / 1000) - typed.t > ttlSeconds) {
    throw new EscalationException(
      EscalationErrorCode.SignedLinkExpired,
      'The signed link has expired',
    );
  }
  return typed;
}

/** Epoch seconds of `at`, as the `t` claim carries it. */
export function issuedAt(at: Date): number {
  return Math.floor(at.getTime() / 1000);
}

function mac(secret: string, purpose: SignedPurpose, payload: string): Buffer {
  const message = purpose === 'ack_link' ? payload : `${purpose}:${payload}`;
  return createHmac('sha256', secret).update(message).digest();
}

function invalid(): AppException {
  return new EscalationException(
    EscalationErrorCode.InvalidSignedToken,
    'The signed link is not valid',
  );
}

function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

function isBase64Url(value: string): boolean {
  return value.length > 0 && /^[A-Za-z0-9_-]+$/.test(value);
}
