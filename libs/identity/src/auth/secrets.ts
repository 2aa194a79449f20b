import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

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

/**
 * The secret part of a capability URL (a heartbeat's ping URL, a roster's calendar feed):
 * `<id>.<base64url HMAC-SHA256(secretKey, purpose:id:nonce)>`. Nothing of it is stored: the
 * row keeps `nonce`, and replacing the nonce (or SECRET_KEY) makes every older key invalid.
 */
export function capabilityKey(
  secretKey: string,
  purpose: string,
  id: string,
  nonce: string,
): string {
  const mac = createHmac('sha256', secretKey)
    .update(`${purpose}:${id}:${nonce}`)
    .digest('base64url');
  return `${id}.${mac}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The id a capability key names, or null when it is not shaped like one. */
export function capabilityKeyId(key: string): string | null {
  const id = key.split('.')[0];
  return key.length < 200 && UUID.test(id) ? id : null;
}

/** Whether `key` is the current capability key of the row with this id and nonce. */
export function isCapabilityKey(
  secretKey: string,
  purpose: string,
  id: string,
  nonce: string,
  key: string,
): boolean {
  return safeEqual(capabilityKey(secretKey, purpose, id, nonce), key);
}
