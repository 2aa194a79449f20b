import { isIP } from 'node:net';
import {
  ValidateBy,
  ValidateIf,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';

/** A CIDR as written: its address family, prefix, and whether it names the network itself. */
export interface ParsedCidr {
  version: 4 | 6;
  prefix: number;
  /** No host bits set: `10.0.0.0/24`, not `10.0.0.5/24`. */
  exact: boolean;
  /** The network address, as `exact` would have it. */
  network: string;
}

function addressValue(address: string, version: 4 | 6): bigint {
  if (version === 4) {
    return address.split('.').reduce((sum, octet) => (sum << 8n) + BigInt(Number(octet)), 0n);
  }
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  // An embedded IPv4 tail (`::ffff:10.0.0.1`) stands for two groups.
  const groups = (part: string | undefined) =>
    (part ? part.split(':') : []).flatMap((group) => {
      if (!group.includes('.')) return [parseInt(group, 16)];
      const v4 = addressValue(group, 4);
      return [Number(v4 >> 16n), Number(v4 & 0xffffn)];
    });
  const left = groups(head);
  const right = groups(tail);
  const all =
    tail === undefined
      ? left
      : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.reduce((sum, group) => (sum << 16n) + BigInt(group), 0n);
}

function formatNetwork(value: bigint, version: 4 | 6): string {
  if (version === 4) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) =>
    ((value >> BigInt((7 - i) * 16)) & 0xffffn).toString(16),
  );
  // Compressed by the URL parser, which writes IPv6 as RFC 5952 does.
  return new URL(`http://[${groups.join(':')}]`).hostname.slice(1, -1);
}

/** `address/prefix` in either family, or null. */
export function parseCidr(text: string): ParsedCidr | null {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(text);
  if (!match) return null;
  const version = isIP(match[1]);
  if (version !== 4 && version !== 6) return null;
  const prefix = Number(match[2]);
  const bits = version === 4 ? 32 : 128;
  if (prefix > bits) return null;
  const value = addressValue(match[1], version);
  const hostBits = BigInt(bits - prefix);
  const network = (value >> hostBits) << hostBits;
  return {
    version,
    prefix,
    exact: network === value,
    network: `${formatNetwork(network, version)}/${prefix}`,
  };
}

/**
 * A check of one field that may look at the others, with its own message: for the rules
 * that relate fields (a port range needs a protocol, a prefix its ethertype's family).
 */
export function Satisfies(
  name: string,
  test: (value: unknown, body: Record<string, unknown>) => boolean,
  /** The message after the field's name, or the whole message. */
  message: string | ((value: unknown, body: Record<string, unknown>, field: string) => string),
  options?: ValidationOptions,
): PropertyDecorator {
  return ValidateBy(
    {
      name,
      validator: {
        validate: (value, args?: ValidationArguments) =>
          test(value, (args?.object ?? {}) as Record<string, unknown>),
        defaultMessage: (args?: ValidationArguments) =>
          typeof message === 'string'
            ? `${args?.property} ${message}`
            : message(
                args?.value,
                (args?.object ?? {}) as Record<string, unknown>,
                args?.property ?? '',
              ),
      },
    },
    options,
  );
}

/**
 * The field may be left out; when present it is validated, and null is no value (unlike
 * `IsOptional`, which would let a null through to the provider).
 */
export const IsOmittable = (): PropertyDecorator =>
  ValidateIf((_body: object, value: unknown) => value !== undefined);

/** A CIDR; with `exact`, the network address itself (as Neutron wants a subnet's). */
export const IsCidr = (options: { exact?: boolean; each?: boolean } = {}): PropertyDecorator =>
  Satisfies(
    'isCidr',
    (value) => {
      const cidr = typeof value === 'string' ? parseCidr(value) : null;
      return cidr !== null && (!options.exact || cidr.exact);
    },
    (value, _body, field) => {
      const cidr = typeof value === 'string' ? parseCidr(value) : null;
      return cidr && !cidr.exact
        ? `${field} ${String(value)} is not a network address; the network is ${cidr.network}`
        : `${options.each ? 'each of ' : ''}${field} must be a CIDR such as 10.0.0.0/24 or 2001:db8::/64`;
    },
    { each: options.each },
  );

/** The IP version (4 or 6) of an address or CIDR, or null. */
export function ipVersionOf(value: unknown): 4 | 6 | null {
  if (typeof value !== 'string') return null;
  const version = isIP(value.split('/')[0]);
  return version === 4 || version === 6 ? version : null;
}
