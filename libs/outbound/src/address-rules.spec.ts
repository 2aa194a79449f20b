import { describe, expect, it } from '@jest/globals';
import { addressRefusal, isLoopbackName } from './address-rules.js';

describe('addressRefusal', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.255.254', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['10.0.0.5', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['fc00::1', 'a private address'],
    ['fd12:3456:789a::1', 'a private address'],
    ['fec0::1', 'a private address'],
    ['169.254.169.254', 'a link-local address'],
    ['169.254.0.1', 'a link-local address'],
    ['fe80::1', 'a link-local address'],
    ['febf::1', 'a link-local address'],
    ['100.64.0.1', 'a shared (carrier-grade NAT) address'],
    ['100.127.255.254', 'a shared (carrier-grade NAT) address'],
    ['224.0.0.1', 'a multicast address'],
    ['239.255.255.250', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['0.0.0.0', 'an unspecified address'],
    ['0.1.2.3', 'an unspecified address'],
    ['::', 'an unspecified address'],
    ['255.255.255.255', 'a broadcast address'],
    ['192.0.0.8', 'a reserved address'],
    ['192.0.2.1', 'a reserved address'],
    ['198.18.0.1', 'a reserved address'],
    ['198.51.100.7', 'a reserved address'],
    ['203.0.113.9', 'a reserved address'],
    ['240.0.0.1', 'a reserved address'],
    ['2001:db8::1', 'a reserved address'],
    ['3fff::1', 'a reserved address'],
    ['100::1', 'a reserved address'],
    // Teredo and IPv4-compatible (::a.b.c.d) forms reach no public host we would call.
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'a reserved address'],
    ['::7f00:1', 'a reserved address'],
    ['::808:808', 'a reserved address'],
    // Outside 2000::/3, the only block IANA hands out for global unicast.
    ['4000::1', 'a reserved address'],
    // IPv4 inside IPv6: the embedded address decides.
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['::ffff:a9fe:a9fe', 'a link-local address'],
    ['::ffff:10.1.2.3', 'a private address'],
    ['::ffff:0:127.0.0.1', 'a loopback address'],
    ['64:ff9b::127.0.0.1', 'a loopback address'],
    ['64:ff9b::a9fe:a9fe', 'a link-local address'],
    ['64:ff9b::c0a8:101', 'a private address'],
    ['64:ff9b:1::a00:1', 'a reserved address'],
    ['2002:7f00:1::', 'a loopback address'],
    ['2002:a9fe:a9fe::1', 'a link-local address'],
    ['2002:c0a8:101::1', 'a private address'],
    ['not an address', 'an address that cannot be parsed'],
  ])('refuses %s as %s', (address, reason) => {
    expect(addressRefusal(address)).toBe(reason);
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '93.184.215.14',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '169.253.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows the public address %s', (address) => {
    expect(addressRefusal(address)).toBeNull();
  });
});

describe('isLoopbackName', () => {
  it.each(['localhost', 'LOCALHOST', 'localhost.', 'api.localhost', 'a.b.Localhost.'])(
    'treats %s as this machine',
    (name) => {
      expect(isLoopbackName(name)).toBe(true);
    },
  );

  it.each(['localhost.example.com', 'notlocalhost', 'hooks.test', 'localhostx'])(
    'leaves %s to the resolver',
    (name) => {
      expect(isLoopbackName(name)).toBe(false);
    },
  );
});
