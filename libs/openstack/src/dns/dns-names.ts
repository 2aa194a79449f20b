import { isIPv4, isIPv6 } from 'node:net';

/**
 * DNS names and record data as customers may write them, checked and normalised before
 * anything reaches Designate, so a typo is a 422 naming the field rather than an upstream
 * error in Designate's words.
 */

/** The record types customers manage; SOA and the apex NS set are Designate's own. */
export const RECORD_TYPES = ['A', 'AAAA', 'CAA', 'CNAME', 'MX', 'NS', 'PTR', 'SRV', 'TXT'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export const isRecordType = (value: unknown): value is RecordType =>
  typeof value === 'string' && (RECORD_TYPES as readonly string[]).includes(value);

/** A name's length limit in its textual form without the final dot (RFC 1035: 255 octets). */
const MAX_NAME_LENGTH = 253;
/** The limit of one character-string of a TXT record (RFC 1035). */
export const MAX_TXT_CHUNK = 255;

/** Letters, digits and hyphens, no hyphen first or last: what a zone (a registrable domain) is. */
const ZONE_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;
/** Owner names and targets may carry underscores too (`_dmarc`, `_sip._tcp`, DKIM selectors). */
const RECORD_LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/i;

const withoutFinalDot = (name: string) => (name.endsWith('.') ? name.slice(0, -1) : name);

/** Why `name` is no zone name, or null. Accepted with or without the final dot. */
export function zoneNameProblem(name: string): string | null {
  const bare = withoutFinalDot(name);
  if (bare.length === 0 || bare.length > MAX_NAME_LENGTH) {
    return `name must be a DNS name of at most ${MAX_NAME_LENGTH} characters, e.g. example.com`;
  }
  const labels = bare.split('.');
  if (!labels.every((label) => ZONE_LABEL.test(label))) {
    return 'name must be a DNS name: labels of 1 to 63 letters, digits or hyphens (not first or last), separated by dots; internationalised names in their xn-- form';
  }
  if (labels.length < 2) return 'name must have at least two labels (example.com, not com)';
  if (/^\d+$/.test(labels[labels.length - 1])) return 'name must not end in an all-digit label';
  return null;
}

/** Designate's form of a zone name: lower case, with the final dot. */
export const normaliseZoneName = (name: string) => `${withoutFinalDot(name).toLowerCase()}.`;

/**
 * Why `name` is no record owner name, or null: `@` (the apex), a relative name (`www`), or an
 * absolute one (`www.example.com.`); a wildcard `*` may be the first label.
 */
export function recordNameProblem(name: string): string | null {
  if (name === '@') return null;
  const bare = withoutFinalDot(name);
  const labels = bare.split('.');
  if (
    bare.length === 0 ||
    bare.length > MAX_NAME_LENGTH ||
    !labels.every((label, i) => (i === 0 && label === '*') || RECORD_LABEL.test(label))
  ) {
    return 'name must be @, a name relative to the zone (www) or an absolute one (www.example.com.): labels of 1 to 63 letters, digits, hyphens or underscores, a wildcard * first';
  }
  return null;
}

/**
 * The absolute owner name of `name` in the zone `zoneName` (which ends with a dot), or why it
 * has none. The rule: `@` is the apex; a name ending with a dot is absolute and must lie in
 * the zone; a name without it is relative to the zone (`www` is `www.example.com.`), except
 * that one already ending in the zone's name (`www.example.com`) means that name, since nobody
 * means `www.example.com.example.com.`. Lower case, as DNS compares names.
 */
export function absoluteRecordName(
  name: string,
  zoneName: string,
): { name: string } | { problem: string } {
  const zone = normaliseZoneName(zoneName);
  const bareZone = zone.slice(0, -1);
  const lower = name.toLowerCase();
  let absolute: string;
  if (lower === '@') absolute = zone;
  else if (lower.endsWith('.')) absolute = lower;
  else if (lower === bareZone || lower.endsWith(`.${bareZone}`)) absolute = `${lower}.`;
  else absolute = `${lower}.${zone}`;
  if (absolute !== zone && !absolute.endsWith(`.${zone}`)) {
    return { problem: `name ${absolute} is not in the zone ${zone}` };
  }
  if (absolute.length - 1 > MAX_NAME_LENGTH) {
    return { problem: `name ${absolute} is longer than ${MAX_NAME_LENGTH} characters` };
  }
  return { name: absolute };
}

/** A host name a record points at (CNAME, NS, PTR, MX and SRV targets), not an address. */
function isHostName(value: string): boolean {
  const bare = withoutFinalDot(value);
  return (
    bare.length > 0 &&
    bare.length <= MAX_NAME_LENGTH &&
    !isIPv4(bare) &&
    bare.split('.').every((label) => RECORD_LABEL.test(label))
  );
}

/** Targets are absolute: Designate wants the final dot, and a relative target is a typo. */
const absoluteHost = (host: string) => (host === '.' || host.endsWith('.') ? host : `${host}.`);

const isUint16 = (text: string) => /^\d{1,5}$/.test(text) && Number(text) <= 65535;

/**
 * The character-strings of a TXT value written as one or more quoted strings separated by
 * spaces (`"v=spf1 -all"`, `"part one" "part two"`), a backslash escaping the next character;
 * null when it is not written so.
 */
export function txtChunks(value: string): string[] | null {
  const chunks: string[] = [];
  let i = 0;
  while (i < value.length) {
    if (value[i] !== '"') return null;
    let chunk = '';
    for (i++; ; i++) {
      if (i >= value.length) return null;
      if (value[i] === '"') break;
      if (value[i] === '\\') {
        if (++i >= value.length) return null;
      }
      chunk += value[i];
    }
    chunks.push(chunk);
    i++;
    if (i < value.length) {
      if (value[i] !== ' ') return null;
      while (value[i] === ' ') i++;
    }
  }
  return chunks.length > 0 ? chunks : null;
}

const MX = /^(\d{1,5})\s+(\S+)$/;
const SRV = /^(\d{1,5})\s+(\d{1,5})\s+(\d{1,5})\s+(\S+)$/;
const CAA = /^(\d{1,3})\s+([a-z0-9]{1,15})\s+("(?:[^"\\]|\\.)*")$/i;

/** Why `value` is no record of `type`, or null. */
export function recordDataProblem(type: RecordType, value: string): string | null {
  switch (type) {
    case 'A':
      return isIPv4(value) ? null : 'an A record is an IPv4 address, e.g. 192.0.2.10';
    case 'AAAA':
      return isIPv6(value) && !value.includes('%')
        ? null
        : 'an AAAA record is an IPv6 address, e.g. 2001:db8::10';
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return isHostName(value)
        ? null
        : `a ${type} record is a host name, e.g. host.example.com., not an address`;
    case 'MX': {
      const match = MX.exec(value);
      return match && isUint16(match[1]) && (match[2] === '.' || isHostName(match[2]))
        ? null
        : 'an MX record is "<priority 0-65535> <host name>", e.g. 10 mail.example.com.';
    }
    case 'SRV': {
      const match = SRV.exec(value);
      return match &&
        [match[1], match[2], match[3]].every(isUint16) &&
        (match[4] === '.' || isHostName(match[4]))
        ? null
        : 'an SRV record is "<priority> <weight> <port> <target host>", numbers 0-65535, e.g. 10 5 5060 sip.example.com.';
    }
    case 'TXT': {
      const chunks = txtChunks(value);
      if (!chunks) {
        return 'a TXT record is one or more quoted strings, e.g. "v=spf1 -all" or "part one" "part two"';
      }
      return chunks.every((chunk) => Buffer.byteLength(chunk) <= MAX_TXT_CHUNK)
        ? null
        : `each quoted string of a TXT record holds at most ${MAX_TXT_CHUNK} bytes; split longer text into several`;
    }
    case 'CAA': {
      const match = CAA.exec(value);
      return match && Number(match[1]) <= 255
        ? null
        : 'a CAA record is "<flags 0-255> <tag> \\"<value>\\"", e.g. 0 issue "letsencrypt.org"';
    }
  }
}

/** Why `records` cannot be the data of one record set of `type`, naming the entry, or null. */
export function recordsProblem(type: RecordType, records: readonly string[]): string | null {
  if (type === 'CNAME' && records.length > 1) return 'a CNAME record set holds exactly one record';
  for (const [i, value] of records.entries()) {
    const problem = recordDataProblem(type, value);
    if (problem) return `records.${i}: ${problem}`;
  }
  return null;
}

/** A valid record in the form Designate stores: absolute targets, single spaces. */
export function normaliseRecordData(type: RecordType, value: string): string {
  switch (type) {
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return absoluteHost(value);
    case 'MX': {
      const [, priority, host] = MX.exec(value)!;
      return `${Number(priority)} ${absoluteHost(host)}`;
    }
    case 'SRV': {
      const [, priority, weight, port, target] = SRV.exec(value)!;
      return `${Number(priority)} ${Number(weight)} ${Number(port)} ${absoluteHost(target)}`;
    }
    case 'CAA': {
      const [, flags, tag, quoted] = CAA.exec(value)!;
      return `${Number(flags)} ${tag.toLowerCase()} ${quoted}`;
    }
    default:
      return value;
  }
}
