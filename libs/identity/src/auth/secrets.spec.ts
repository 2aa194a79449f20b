import { describe, expect, it } from '@jest/globals';
import { capabilityKey, capabilityKeyId, isCapabilityKey } from './secrets.js';

const ID = '6f1c1a3e-2b7d-4c59-9a51-0d1e2f3a4b5c';

describe('capability keys', () => {
  const key = capabilityKey('secret', 'heartbeat_ping', ID, 'nonce-1');

  it('name their row and verify only with the same secret, purpose and nonce', () => {
    expect(key).toMatch(new RegExp(`^${ID}\\.[A-Za-z0-9_-]{43}$`));
    expect(capabilityKeyId(key)).toBe(ID);
    expect(isCapabilityKey('secret', 'heartbeat_ping', ID, 'nonce-1', key)).toBe(true);
    expect(isCapabilityKey('secret', 'heartbeat_ping', ID, 'nonce-2', key)).toBe(false);
    expect(isCapabilityKey('other', 'heartbeat_ping', ID, 'nonce-1', key)).toBe(false);
    expect(isCapabilityKey('secret', 'calendar_feed', ID, 'nonce-1', key)).toBe(false);
    expect(isCapabilityKey('secret', 'heartbeat_ping', ID, 'nonce-1', `${key}x`)).toBe(false);
  });

  it('name no row when not shaped like a key', () => {
    expect(capabilityKeyId('nonsense')).toBeNull();
    expect(capabilityKeyId(`${ID.toUpperCase()}.abc`)).toBeNull();
    expect(capabilityKeyId(`${ID}.${'a'.repeat(300)}`)).toBeNull();
  });
});
