import { describe, expect, it } from '@jest/globals';
import { E164 } from './phone.dto.js';
import { generatePhoneCode, hashPhoneCode } from './phone-verification.service.js';

describe('phone verification codes', () => {
  it('are six digits, leading zeros kept', () => {
    for (let i = 0; i < 200; i++) expect(generatePhoneCode()).toMatch(/^\d{6}$/);
  });

  it('are hashed with the secret key and bound to the account and the number', () => {
    const hash = hashPhoneCode('key', 'account-1', '+4915123456789', '123456');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain('123456');
    expect(hashPhoneCode('key', 'account-1', '+4915123456789', '123456')).toBe(hash);
    expect(hashPhoneCode('other', 'account-1', '+4915123456789', '123456')).not.toBe(hash);
    expect(hashPhoneCode('key', 'account-2', '+4915123456789', '123456')).not.toBe(hash);
    expect(hashPhoneCode('key', 'account-1', '+4915123456780', '123456')).not.toBe(hash);
  });
});

describe('E.164', () => {
  it.each(['+4915123456789', '+15550000000', '+12345678', '+123456789012345'])('accepts %s', (n) =>
    expect(E164.test(n)).toBe(true),
  );

  it.each([
    '015123456789',
    '+015123456789',
    '+1234567',
    '+1234567890123456',
    '+49 151 234',
    '4915123456789',
    '',
  ])('refuses %j', (n) => expect(E164.test(n)).toBe(false));
});
