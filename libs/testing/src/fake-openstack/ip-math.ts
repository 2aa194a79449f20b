import { isIP } from 'node:net';

/** An address as a number, so subnets can be compared and addresses allocated. */
export interface Address {
  version: 4 | 6;
  value: bigint;
}

export interface Cidr {
  version: 4 | 6;
  /** The first address of the network. */
  network: bigint;
  prefix: number;
  /** Whether the text named the network address itself (no host bits set). */
  exact: boolean;
}

const bitsOf = (version: 4 | 6) => (version === 4 ? 32 : 128);

export function parseAddress(text: string): Address | null {
  const version = isIP(text);
  if (version === 4) {
    const value = text.split('.').reduce((sum, octet) => (sum << 8n) + BigInt(Number(octet)), 0n);
    return { version, value };
  }
  if (version !== 6) return null;
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  // An embedded IPv4 tail (`::ffff:1.2.3.4`) counts as two groups.
  const groupsOf = (part: string | undefined) =>
    (part ? part.split(':') : []).flatMap((group) => {
      if (!group.includes('.')) return [group];
      const v4 = parseAddress(group)!.value;
      return [(v4 >> 16n).toString(16), (v4 & 0xffffn).toString(16)];
    });
  const left = groupsOf(head);
  const right = groupsOf(tail);
  const full =
    tail === undefined
      ? left
      : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const value = full.reduce((sum, group) => (sum << 16n) + BigInt(parseInt(group || '0', 16)), 0n);
  return { version, value };
}

export function formatAddress({ version, value }: Address): string {
  if (version === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  }
  const groups = Array.from({ length: 8 }, (_, i) =>
    ((value >> BigInt((7 - i) * 16)) & 0xffffn).toString(16),
  );
  // The longest run of zero groups (two or more) becomes `::`, as RFC 5952 writes it.
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > best.length && j - i >= 2) best = { start: i, length: j - i };
    i = j;
  }
  if (best.start < 0) return groups.join(':');
  const head = groups.slice(0, best.start).join(':');
  const tail = groups.slice(best.start + best.length).join(':');
  return `${head}::${tail}`;
}

export function parseCidr(text: string): Cidr | null {
  const [address, prefixText, extra] = text.split('/');
  if (extra !== undefined || prefixText === undefined || !/^\d{1,3}$/.test(prefixText)) return null;
  const parsed = parseAddress(address);
  const prefix = Number(prefixText);
  if (!parsed || prefix > bitsOf(parsed.version)) return null;
  const hostBits = BigInt(bitsOf(parsed.version) - prefix);
  const network = (parsed.value >> hostBits) << hostBits;
  return { version: parsed.version, network, prefix, exact: network === parsed.value };
}

export const formatCidr = (cidr: Cidr) =>
  `${formatAddress({ version: cidr.version, value: cidr.network })}/${cidr.prefix}`;

/** The last address of the network. */
export const lastOf = (cidr: Cidr) =>
  cidr.network + (1n << BigInt(bitsOf(cidr.version) - cidr.prefix)) - 1n;

export const contains = (cidr: Cidr, address: Address) =>
  address.version === cidr.version &&
  address.value >= cidr.network &&
  address.value <= lastOf(cidr);

export const overlaps = (a: Cidr, b: Cidr) =>
  a.version === b.version && a.network <= lastOf(b) && b.network <= lastOf(a);
