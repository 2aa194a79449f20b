import { describe, expect, it } from '@jest/globals';
import { CABLE_PROTOCOL, channelOf, parseCommand, selectProtocol } from './action-cable.js';

describe('Action Cable frames', () => {
  it('answers actioncable-v1-json only when the client offers it', () => {
    expect(selectProtocol(new Set([CABLE_PROTOCOL, 'actioncable-unsupported']))).toBe(
      CABLE_PROTOCOL,
    );
    expect(selectProtocol(new Set(['actioncable-unsupported']))).toBe(false);
    expect(selectProtocol(new Set())).toBe(false);
  });

  it('parses commands from text, buffers and fragments', () => {
    const frame = { command: 'subscribe', identifier: '{"channel":"NotificationsChannel"}' };
    const text = JSON.stringify(frame);
    expect(parseCommand(text)).toEqual({ ...frame, data: undefined });
    expect(parseCommand(Buffer.from(text))).toEqual({ ...frame, data: undefined });
    expect(parseCommand([Buffer.from(text.slice(0, 5)), Buffer.from(text.slice(5))])).toEqual({
      ...frame,
      data: undefined,
    });
  });

  it.each([
    'not json',
    'null',
    '[]',
    '"subscribe"',
    '{"command":"subscribe"}',
    '{"command":1,"identifier":"x"}',
    '{"command":"subscribe","identifier":{"channel":"NotificationsChannel"}}',
  ])('ignores the malformed frame %s', (text) => {
    expect(parseCommand(text)).toBeNull();
  });

  it('ignores data it cannot read as text', () => {
    expect(parseCommand(42)).toBeNull();
    expect(parseCommand(undefined)).toBeNull();
  });

  it('reads the channel of an identifier', () => {
    expect(channelOf('{"channel":"NotificationsChannel","tab":1}')).toBe('NotificationsChannel');
    expect(channelOf('{"channel":7}')).toBeNull();
    expect(channelOf('["NotificationsChannel"]')).toBeNull();
    expect(channelOf('NotificationsChannel')).toBeNull();
  });
});
