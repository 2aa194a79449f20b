import { describe, expect, it } from '@jest/globals';
import { DELIVERY_CHANNELS, PERSON_CHANNELS } from './channel.js';
import { CHANNEL_TYPES } from './channel-registry.js';

describe('channel registry', () => {
  it('has one channel per delivery channel name, answering to that name', () => {
    expect(Object.keys(CHANNEL_TYPES).sort()).toEqual([...DELIVERY_CHANNELS].sort());
    for (const [name, type] of Object.entries(CHANNEL_TYPES)) {
      // The constructors only keep their dependencies.
      const channel = new (type as unknown as new () => { name: string })();
      expect(channel.name).toBe(name);
    }
  });

  it('reaches people on every channel but webhooks', () => {
    expect(PERSON_CHANNELS).toEqual(['in_app', 'email', 'phone', 'sms']);
  });
});
