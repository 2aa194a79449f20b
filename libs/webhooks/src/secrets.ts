import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Prefix of receive secrets, so secret scanners and people can tell what a leaked one is. */
export const RECEIVE_SECRET_PREFIX = 'hq_whr_';

/** A receive secret: the prefix and 32 random bytes in base64url (header-safe as it is). */
export function generateReceiveSecret(): string {
  return `${RECEIVE_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** What is stored of a receive secret. */
export function hashReceiveSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Whether `presented` hashes to `storedHash`, in time independent of where they differ. */
export function receiveSecretMatches(presented: string, storedHash: string): boolean {
  const given = Buffer.from(hashReceiveSecret(presented), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/**
 * The secret of an `Authorization` header as registries send it: the bare secret (Harbor sends
 * its "auth header" value as is) or `Bearer <secret>`. Null when there is none.
 */
export function presentedSecret(header: string | undefined): string | null {
  const value = header?.trim();
  if (!value) return null;
  const bearer = /^bearer\s+(\S+)$/i.exec(value);
  return bearer ? bearer[1] : value;
}
