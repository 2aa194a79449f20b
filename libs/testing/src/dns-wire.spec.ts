import { promises as dns } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  decodeMessage,
  decodeTxt,
  DNS_CLASS_IN,
  DNS_TYPE,
  DnsWireError,
  encodeAddress,
  encodeMessage,
  encodeName,
  encodeTxt,
  RCODE,
  readName,
} from './dns-wire.js';
import { FakeDnsServer } from './fake-dns-server.js';

describe('DNS wire format', () => {
  it('encodes names as length-prefixed labels ending in the root', () => {
    expect(encodeName('www.example.com.')).toEqual(
      Buffer.from('\x03www\x07example\x03com\x00', 'latin1'),
    );
    expect(encodeName('www.example.com')).toEqual(encodeName('www.example.com.'));
    expect(encodeName('')).toEqual(Buffer.from([0]));
    expect(() => encodeName(`${'a'.repeat(64)}.com`)).toThrow(DnsWireError);
    expect(() => encodeName(Array(128).fill('ab').join('.'))).toThrow(DnsWireError);
  });

  it('round-trips a message with every section', () => {
    const message = {
      id: 0xbeef,
      flags: {
        qr: true,
        opcode: 0,
        aa: true,
        tc: false,
        rd: true,
        ra: false,
        rcode: RCODE.NXDOMAIN,
      },
      questions: [{ name: 'example.com', type: DNS_TYPE.TXT, class: DNS_CLASS_IN }],
      answers: [
        {
          name: 'example.com',
          type: DNS_TYPE.TXT,
          class: DNS_CLASS_IN,
          ttl: 60,
          data: encodeTxt('hi'),
        },
      ],
      authorities: [
        {
          name: 'example.com',
          type: DNS_TYPE.A,
          class: DNS_CLASS_IN,
          ttl: 2 ** 32 - 1,
          data: encodeAddress('192.0.2.1'),
        },
      ],
      additionals: [{ name: '', type: DNS_TYPE.OPT, class: 1232, ttl: 0, data: Buffer.alloc(0) }],
    };
    expect(decodeMessage(encodeMessage(message))).toEqual(message);
  });

  it('follows compression pointers and refuses loops, truncation and leftovers', () => {
    // "example.com" at 12, then "www" + a pointer to it.
    const header = Buffer.alloc(12);
    const body = Buffer.concat([
      encodeName('example.com'),
      Buffer.from([3, 0x77, 0x77, 0x77, 0xc0, 12]),
    ]);
    const message = Buffer.concat([header, body]);
    expect(readName(message, 12)).toEqual({ name: 'example.com', end: 25 });
    expect(readName(message, 25)).toEqual({ name: 'www.example.com', end: 31 });
    const loop = Buffer.concat([header, Buffer.from([0xc0, 12])]);
    expect(() => readName(loop, 12)).toThrow('compression pointers loop');
    expect(() => readName(Buffer.concat([header, Buffer.from([5, 0x61])]), 12)).toThrow(
      DnsWireError,
    );
    expect(() => readName(Buffer.concat([header, Buffer.from([0x40])]), 12)).toThrow(
      'unknown label type',
    );
    const query = encodeMessage({
      id: 1,
      flags: { qr: false, opcode: 0, aa: false, tc: false, rd: true, ra: false, rcode: 0 },
      questions: [{ name: 'a.example', type: DNS_TYPE.A, class: DNS_CLASS_IN }],
      answers: [],
      authorities: [],
      additionals: [],
    });
    expect(() => decodeMessage(query.subarray(0, query.length - 1))).toThrow(DnsWireError);
    expect(() => decodeMessage(Buffer.concat([query, Buffer.from([0])]))).toThrow('bytes after');
    expect(() => decodeMessage(Buffer.alloc(5))).toThrow('shorter than a DNS header');
  });

  it('splits TXT text into character-strings of 255 octets, or keeps the strings given', () => {
    const long = 'x'.repeat(300);
    expect(decodeTxt(encodeTxt(long))).toEqual(['x'.repeat(255), 'x'.repeat(45)]);
    expect(decodeTxt(encodeTxt(['a b', 'c']))).toEqual(['a b', 'c']);
    expect(decodeTxt(encodeTxt(''))).toEqual(['']);
    expect(() => encodeTxt(['y'.repeat(256)])).toThrow(DnsWireError);
    expect(() => decodeTxt(Buffer.from([4, 0x61]))).toThrow(DnsWireError);
  });

  it('encodes IPv4 and IPv6 addresses', () => {
    expect([...encodeAddress('192.0.2.10')]).toEqual([192, 0, 2, 10]);
    expect(encodeAddress('2001:db8::1').toString('hex')).toBe('20010db8000000000000000000000001');
    expect(encodeAddress('::').toString('hex')).toBe('0'.repeat(32));
    expect(() => encodeAddress('example.com')).toThrow(DnsWireError);
  });
});

describe('FakeDnsServer, asked by Node’s own resolver', () => {
  let server: FakeDnsServer;
  const resolver = () => {
    const r = new dns.Resolver({ timeout: 200, tries: 1 });
    r.setServers([server.address]);
    return r;
  };

  beforeAll(async () => {
    server = await FakeDnsServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers TXT (several records, split strings) and A/AAAA questions from its records', async () => {
    server.setTxt('_check.Example.com.', ['token-1', ['part one ', 'part two']]);
    server.setAddresses('www.example.com', ['192.0.2.10', '2001:db8::10']);
    expect(await resolver().resolveTxt('_check.example.com')).toEqual([
      ['token-1'],
      ['part one ', 'part two'],
    ]);
    expect(await resolver().resolve4('www.example.com.')).toEqual(['192.0.2.10']);
    expect(await resolver().resolve6('WWW.example.com')).toEqual(['2001:db8::10']);
    expect(server.questions.at(-1)).toEqual({
      name: 'www.example.com',
      type: DNS_TYPE.AAAA,
      class: DNS_CLASS_IN,
    });
  });

  it('answers NXDOMAIN for unknown names and NODATA for a type a name lacks', async () => {
    await expect(resolver().resolveTxt('nothing.example.com')).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
    server.setAddresses('only-a.example.com', ['192.0.2.11']);
    await expect(resolver().resolveTxt('only-a.example.com')).rejects.toMatchObject({
      code: 'ENODATA',
    });
    server.remove('only-a.example.com');
    await expect(resolver().resolve4('only-a.example.com')).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
  });

  it('truncates an answer too large for UDP, which the resolver then gets over TCP', async () => {
    const values = Array.from({ length: 12 }, (_, i) => `${i}-${'v'.repeat(60)}`);
    server.setTxt('big.example.com', values);
    const answer = await resolver().resolveTxt('big.example.com');
    expect(answer.map((chunks) => chunks.join(''))).toEqual(values);
  });

  it('fails on demand: SERVFAIL, REFUSED, or no answer at all', async () => {
    server.setTxt('failing.example.com', ['x']);
    try {
      server.failure = 'servfail';
      await expect(resolver().resolveTxt('failing.example.com')).rejects.toMatchObject({
        code: 'ESERVFAIL',
      });
      server.failure = 'refused';
      await expect(resolver().resolveTxt('failing.example.com')).rejects.toMatchObject({
        code: 'EREFUSED',
      });
      server.failure = 'drop';
      await expect(resolver().resolveTxt('failing.example.com')).rejects.toMatchObject({
        code: 'ETIMEOUT',
      });
    } finally {
      server.failure = null;
    }
  });
});
