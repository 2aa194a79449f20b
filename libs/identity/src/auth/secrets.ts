import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random URL-safe secret; the prefix makes a leaked value recognisable to secret scanners. */
export function randomSecret(prefix = '', bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

/** Secrets are stored only as their SHA-256, looked up by it. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
