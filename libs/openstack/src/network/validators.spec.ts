import { describe, expect, it } from '@jest/globals';
import { ipVersionOf, parseCidr } from './validators.js';

describe('parseCidr', () => {
  it('reads IPv4 and IPv6 networks, and says whether host bits are set', () => {
    expect(parseCidr('10.0.0.0/24')).toEqual({
      version: 4,
      prefix: 24,
      exact: true,
      network: '10.0.0.0/24',
    });
    expect(parseCidr('10.0.0.5/24')).toMatchObject({ exact: false, network: '10.0.0.0/24' });
    expect(parseCidr('0.0.0.0/0')).toMatchObject({ exact: true, network: '0.0.0.0/0' });
    expect(parseCidr('2001:db8::/64')).toMatchObject({ version: 6, exact: true });
    expect(parseCidr('2001:db8:0:0:1::/64')).toMatchObject({
      exact: false,
      network: '2001:db8::/64',
    });
    expect(parseCidr('::/0')).toMatchObject({ version: 6, exact: true, network: '::/0' });
    expect(parseCidr('::ffff:10.0.0.1/128')).toMatchObject({ version: 6, exact: true });
  });

  it('refuses what is no CIDR', () => {
    for (const text of [
      '10.0.0.0',
      '10.0.0.0/33',
      '10.0.0/24',
      '::/129',
      'ten/8',
      '10.0.0.0/24/1',
    ]) {
      expect(parseCidr(text)).toBeNull();
    }
  });

  it('tells the family of an address or a CIDR', () => {
    expect(ipVersionOf('192.0.2.1')).toBe(4);
    expect(ipVersionOf('2001:db8::/32')).toBe(6);
    expect(ipVersionOf('host.example')).toBeNull();
    expect(ipVersionOf(4)).toBeNull();
  });
});
