import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/**
 * Why outbound calls may not reach an address, as the end of "url resolves to ...". Only
 * public unicast passes: IPv4 that ipaddr.js classes as `unicast`, IPv6 inside the global
 * unicast block 2000::/3 that it classes as `unicast`. Every other range is refused, the
 * special ones by name and the rest as reserved.
 */
const IPV4_RANGE_REASONS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a shared (carrier-grade NAT) address',
  private: 'a private address',
};

const IPV6_RANGE_REASONS: Record<string, string> = {
  unspecified: 'an unspecified address',
  linkLocal: 'a link-local address',
  multicast: 'a multicast address',
  loopback: 'a loopback address',
  uniqueLocal: 'a private address',
  deprecatedSiteLocal: 'a private address',
};

const RESERVED = 'a reserved address';

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
/** RFC 6052's well-known NAT64 prefix: the last 32 bits are the IPv4 address. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
/** RFC 3056 6to4: bits 16 to 47 are the IPv4 address of the tunnel's end. */
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR('2002::/16');

/** Why `address` (an IPv4 or IPv6 literal) may not be called, or null when it may. */
export function addressRefusal(address: string): string | null {
  if (isIP(address) === 0) return 'an address that cannot be parsed';
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv4' ? ipv4Refusal(parsed as IPv4) : ipv6Refusal(parsed as IPv6);
}

function ipv4Refusal(address: IPv4): string | null {
  const range = address.range();
  if (range === 'unicast') return null;
  return IPV4_RANGE_REASONS[range] ?? RESERVED;
}

function ipv6Refusal(address: IPv6): string | null {
  const embedded = embeddedIPv4(address);
  if (embedded) return ipv4Refusal(embedded);
  const range = address.range();
  const reason = IPV6_RANGE_REASONS[range];
  if (reason) return reason;
  if (range === 'unicast' && address.match(GLOBAL_UNICAST)) return null;
  return RESERVED;
}

/**
 * The IPv4 address an IPv6 form carries and reaches: IPv4-mapped (::ffff:a.b.c.d), the
 * RFC 6145 translated form (::ffff:0:a.b.c.d), well-known NAT64 (64:ff9b::a.b.c.d) and 6to4
 * (2002:aabb:ccdd::). The embedded address decides, so none of them reaches a refused IPv4.
 */
function embeddedIPv4(address: IPv6): IPv4 | null {
  const parts = address.parts;
  const range = address.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || address.match(NAT64_WELL_KNOWN)) {
    return fromWords(parts[6], parts[7]);
  }
  if (address.match(SIX_TO_FOUR)) return fromWords(parts[1], parts[2]);
  return null;
}

function fromWords(high: number, low: number): IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * Names that mean this machine whatever DNS says (RFC 6761): refused before any lookup,
 * since some resolvers answer them from a local table.
 */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}
