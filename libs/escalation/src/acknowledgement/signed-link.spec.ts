import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { issuedAt, signToken, verifyToken } from './signed-link.js';

const SECRET = 'a-secret-key-of-sufficient-length';
const ISSUED = new Date('2025-03-01T12:00:00Z');
const CLAIMS = {
  a: '11111111-1111-4111-8111-111111111111',
  u: '22222222-2222-4222-8222-222222222222',
  i: '33333333-3333-4333-8333-333333333333',
  t: issuedAt(ISSUED),
};
const DAY = 86_400;

const at = (seconds: number) => new Date(ISSUED.getTime() + seconds * 1000);
const codeOf = (work: () => unknown): string | undefined => {
  try {
    work();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
};

describe('signed links', () => {
  it('is the claims in base64url JSON, a dot, and the HMAC-SHA256 of that part', () => {
    const token = signToken(SECRET, 'ack_link', CLAIMS);
    const [payload, signature] = token.split('.');
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString())).toEqual(CLAIMS);
    expect(signature).toBe(createHmac('sha256', SECRET).update(payload).digest('base64url'));
  });

  it('verifies to its claims until the TTL has passed, inclusive', () => {
    const token = signToken(SECRET, 'ack_link', CLAIMS);
    expect(verifyToken(SECRET, 'ack_link', token, at(0), DAY)).toEqual(CLAIMS);
    expect(verifyToken(SECRET, 'ack_link', token, at(DAY), DAY)).toEqual(CLAIMS);
    expect(codeOf(() => verifyToken(SECRET, 'ack_link', token, at(DAY + 1), DAY))).toBe(
      'signed_link_expired',
    );
  });

  it('refuses a token whose claims or signature were changed, or signed with another key', () => {
    const token = signToken(SECRET, 'ack_link', CLAIMS);
    const [payload, signature] = token.split('.');
    const otherAccount = Buffer.from(
      JSON.stringify({ ...CLAIMS, u: '44444444-4444-4444-8444-444444444444' }),
    ).toString('base64url');
    const flipped = signature.slice(0, -1) + (signature.endsWith('A') ? 'B' : 'A');
    for (const forged of [
      `${otherAccount}.${signature}`,
      `${payload}.${flipped}`,
      signToken('another-secret-key-entirely', 'ack_link', CLAIMS),
    ]) {
      expect(codeOf(() => verifyToken(SECRET, 'ack_link', forged, at(0), DAY))).toBe(
        'invalid_signed_token',
      );
    }
  });

  it('refuses malformed tokens as invalid, not as expired', () => {
    const unsigned = (claims: unknown) => {
      const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
      return `${payload}.${createHmac('sha256', SECRET).update(payload).digest('base64url')}`;
    };
    for (const malformed of [
      '',
      'abc',
      'a.b.c',
      '.sig',
      'payload.',
      'pay load.sig',
      unsigned({ ...CLAIMS, a: 'not-a-uuid' }),
      unsigned({ ...CLAIMS, t: '2025' }),
      unsigned([1, 2]),
      `${Buffer.from('not json').toString('base64url')}.${createHmac('sha256', SECRET).update(Buffer.from('not json').toString('base64url')).digest('base64url')}`,
    ]) {
      expect(codeOf(() => verifyToken(SECRET, 'ack_link', malformed, at(0), DAY))).toBe(
        'invalid_signed_token',
      );
    }
  });

  it('never accepts a token of one purpose for another', () => {
    const page = { p: '55555555-5555-4555-8555-555555555555', t: issuedAt(ISSUED) };
    const phone = signToken(SECRET, 'phone_ack', page);
    expect(verifyToken(SECRET, 'phone_ack', phone, at(0), DAY)).toEqual(page);
    expect(codeOf(() => verifyToken(SECRET, 'ack_link', phone, at(0), DAY))).toBe(
      'invalid_signed_token',
    );
    const link = signToken(SECRET, 'ack_link', CLAIMS);
    expect(codeOf(() => verifyToken(SECRET, 'phone_ack', link, at(0), DAY))).toBe(
      'invalid_signed_token',
    );
  });
});
