import { describe, expect, it } from '@jest/globals';
import { loadConfig, PASSWORD_HASHING } from '@platform/core';
import { PasswordHasher } from './passwords.js';

describe('PasswordHasher', () => {
  it('hashes with argon2id at the production cost unless configured otherwise', async () => {
    const hasher = new PasswordHasher(loadConfig({}).passwordHashing);
    expect(PASSWORD_HASHING).toEqual({ memoryCostKiB: 65536, timeCost: 3, parallelism: 4 });
    const hash = await hasher.hash('correct horse battery staple');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=65536,p=4,t=3\$/);
    expect(await hasher.verify(hash, 'correct horse battery staple')).toBe(true);
    expect(await hasher.verify(hash, 'correct horse battery stapler')).toBe(false);
  });

  it('checks a hash at the cost it names, whatever the configured cost', async () => {
    const cheap = new PasswordHasher({ memoryCostKiB: 1024, timeCost: 1, parallelism: 1 });
    const hash = await cheap.hash('correct horse battery staple');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=1024,p=1,t=1\$/);
    const production = new PasswordHasher(PASSWORD_HASHING);
    expect(await production.verify(hash, 'correct horse battery staple')).toBe(true);
  });

  it('answers false for no hash and for a malformed one', async () => {
    const hasher = new PasswordHasher({ memoryCostKiB: 1024, timeCost: 1, parallelism: 1 });
    expect(await hasher.verify(null, 'x')).toBe(false);
    expect(await hasher.verify('not a hash', 'x')).toBe(false);
  });
});
