import { isIPv4, isIPv6 } from 'node:net';

/**
 * The DNS message format of RFC 1035 (section 4), as much as a test name server needs: the
 * header, questions and resource records with their data kept as bytes, names with
 * compression pointers on the way in (resolvers may send them) and none on the way out.
 */

export const DNS_TYPE = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  OPT: 41,
  CAA: 257,
} as const;

export const DNS_CLASS_IN = 1;

export const RCODE = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
} as const;

export interface DnsFlags {
  /** A response (not a query). */
  qr: boolean;
  opcode: number;
  /** Authoritative answer. */
  aa: boolean;
  /** Truncated: the answer did not fit; ask again over TCP. */
  tc: boolean;
  /** Recursion desired, and available. */
  rd: boolean;
  ra: boolean;
  rcode: number;
}

export interface DnsQuestion {
  /** Without the final dot; `''` for the root. */
  name: string;
  type: number;
  class: number;
}

export interface DnsRecord extends DnsQuestion {
  ttl: number;
  data: Buffer;
}

export interface DnsMessage {
  id: number;
  flags: DnsFlags;
  questions: DnsQuestion[];
  answers: DnsRecord[];
  authorities: DnsRecord[];
  additionals: DnsRecord[];
}

export class DnsWireError extends Error {}

const HEADER_LENGTH = 12;
const MAX_LABEL = 63;
const MAX_NAME = 255;
const MAX_CHARACTER_STRING = 255;
/** More pointers than any name of 255 octets can need: a loop. */
const MAX_POINTERS = 127;

/** A name in wire form: length-prefixed labels and the root's zero octet. */
export function encodeName(name: string): Buffer {
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  const labels = bare === '' ? [] : bare.split('.');
  const parts: Buffer[] = [];
  for (const label of labels) {
    const bytes = Buffer.from(label, 'utf8');
    if (bytes.length === 0 || bytes.length > MAX_LABEL) {
      throw new DnsWireError(`label "${label}" must have 1 to ${MAX_LABEL} octets`);
    }
    parts.push(Buffer.from([bytes.length]), bytes);
  }
  parts.push(Buffer.from([0]));
  const wire = Buffer.concat(parts);
  if (wire.length > MAX_NAME)
    throw new DnsWireError(`name ${name} is longer than ${MAX_NAME} octets`);
  return wire;
}

/** Reads the name at `offset`, following compression pointers; answers it and where it ends. */
export function readName(message: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = offset;
  let end: number | null = null;
  let length = 1;
  for (let pointers = 0; ;) {
    if (at >= message.length) throw new DnsWireError('name runs past the message');
    const octet = message[at];
    if (octet === 0) {
      end ??= at + 1;
      break;
    }
    const kind = octet & 0xc0;
    if (kind === 0xc0) {
      if (at + 1 >= message.length) throw new DnsWireError('pointer runs past the message');
      if (++pointers > MAX_POINTERS) throw new DnsWireError('compression pointers loop');
      end ??= at + 2;
      at = ((octet & 0x3f) << 8) | message[at + 1];
      continue;
    }
    if (kind !== 0) throw new DnsWireError('unknown label type');
    if (at + 1 + octet > message.length) throw new DnsWireError('label runs past the message');
    length += octet + 1;
    if (length > MAX_NAME) throw new DnsWireError(`name longer than ${MAX_NAME} octets`);
    labels.push(message.toString('utf8', at + 1, at + 1 + octet));
    at += 1 + octet;
  }
  return { name: labels.join('.'), end };
}

function encodeFlags(flags: DnsFlags): number {
  return (
    (flags.qr ? 0x8000 : 0) |
    ((flags.opcode & 0xf) << 11) |
    (flags.aa ? 0x0400 : 0) |
    (flags.tc ? 0x0200 : 0) |
    (flags.rd ? 0x0100 : 0) |
    (flags.ra ? 0x0080 : 0) |
    (flags.rcode & 0xf)
  );
}

function decodeFlags(value: number): DnsFlags {
  return {
    qr: (value & 0x8000) !== 0,
    opcode: (value >> 11) & 0xf,
    aa: (value & 0x0400) !== 0,
    tc: (value & 0x0200) !== 0,
    rd: (value & 0x0100) !== 0,
    ra: (value & 0x0080) !== 0,
    rcode: value & 0xf,
  };
}

const uint16 = (value: number) => {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16BE(value);
  return buffer;
};

function encodeRecord(record: DnsRecord): Buffer {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(record.type, 0);
  fixed.writeUInt16BE(record.class, 2);
  fixed.writeUInt32BE(record.ttl >>> 0, 4);
  fixed.writeUInt16BE(record.data.length, 8);
  return Buffer.concat([encodeName(record.name), fixed, record.data]);
}

export function encodeMessage(message: DnsMessage): Buffer {
  const header = Buffer.alloc(HEADER_LENGTH);
  header.writeUInt16BE(message.id, 0);
  header.writeUInt16BE(encodeFlags(message.flags), 2);
  header.writeUInt16BE(message.questions.length, 4);
  header.writeUInt16BE(message.answers.length, 6);
  header.writeUInt16BE(message.authorities.length, 8);
  header.writeUInt16BE(message.additionals.length, 10);
  return Buffer.concat([
    header,
    ...message.questions.flatMap((q) => [encodeName(q.name), uint16(q.type), uint16(q.class)]),
    ...[...message.answers, ...message.authorities, ...message.additionals].map(encodeRecord),
  ]);
}

/** Decodes a whole message; anything malformed or left over is a DnsWireError. */
export function decodeMessage(message: Buffer): DnsMessage {
  if (message.length < HEADER_LENGTH) throw new DnsWireError('shorter than a DNS header');
  const counts = [4, 6, 8, 10].map((at) => message.readUInt16BE(at));
  let offset = HEADER_LENGTH;
  const questions: DnsQuestion[] = [];
  for (let i = 0; i < counts[0]; i++) {
    const { name, end } = readName(message, offset);
    if (end + 4 > message.length) throw new DnsWireError('question runs past the message');
    questions.push({ name, type: message.readUInt16BE(end), class: message.readUInt16BE(end + 2) });
    offset = end + 4;
  }
  const sections: DnsRecord[][] = [[], [], []];
  for (const [section, count] of counts.slice(1).entries()) {
    for (let i = 0; i < count; i++) {
      const { name, end } = readName(message, offset);
      if (end + 10 > message.length) throw new DnsWireError('record runs past the message');
      const length = message.readUInt16BE(end + 8);
      if (end + 10 + length > message.length) throw new DnsWireError('data runs past the message');
      sections[section].push({
        name,
        type: message.readUInt16BE(end),
        class: message.readUInt16BE(end + 2),
        ttl: message.readUInt32BE(end + 4),
        data: message.subarray(end + 10, end + 10 + length),
      });
      offset = end + 10 + length;
    }
  }
  if (offset !== message.length) throw new DnsWireError('bytes after the last record');
  return {
    id: message.readUInt16BE(0),
    flags: decodeFlags(message.readUInt16BE(2)),
    questions,
    answers: sections[0],
    authorities: sections[1],
    additionals: sections[2],
  };
}

/**
 * The data of one TXT record: its text as character-strings of at most 255 octets each (a
 * longer text is split, as zone files must write it), or the given strings as they are.
 */
export function encodeTxt(text: string | string[]): Buffer {
  const strings =
    typeof text === 'string'
      ? splitOctets(Buffer.from(text, 'utf8'))
      : text.map((s) => Buffer.from(s, 'utf8'));
  const parts: Buffer[] = [];
  for (const bytes of strings) {
    if (bytes.length > MAX_CHARACTER_STRING) {
      throw new DnsWireError(`a character-string holds at most ${MAX_CHARACTER_STRING} octets`);
    }
    parts.push(Buffer.from([bytes.length]), bytes);
  }
  return Buffer.concat(parts);
}

function splitOctets(bytes: Buffer): Buffer[] {
  if (bytes.length === 0) return [bytes];
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += MAX_CHARACTER_STRING) {
    chunks.push(bytes.subarray(at, at + MAX_CHARACTER_STRING));
  }
  return chunks;
}

/** The character-strings of a TXT record's data. */
export function decodeTxt(data: Buffer): string[] {
  const strings: string[] = [];
  for (let at = 0; at < data.length;) {
    const length = data[at];
    if (at + 1 + length > data.length)
      throw new DnsWireError('character-string runs past the data');
    strings.push(data.toString('utf8', at + 1, at + 1 + length));
    at += 1 + length;
  }
  return strings;
}

/** The data of an A (IPv4) or AAAA (IPv6) record. */
export function encodeAddress(address: string): Buffer {
  if (isIPv4(address)) return Buffer.from(address.split('.').map(Number));
  if (!isIPv6(address)) throw new DnsWireError(`${address} is no IP address`);
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const words =
    tail === undefined
      ? left
      : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  if (words.length !== 8 || words.some((word) => word.includes('.'))) {
    throw new DnsWireError(`${address}: only plain hexadecimal IPv6 notation is encoded`);
  }
  return Buffer.concat(words.map((word) => uint16(parseInt(word, 16))));
}
