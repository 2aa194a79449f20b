import { describe, expect, it } from '@jest/globals';
import {
  absoluteRecordName,
  normaliseRecordData,
  normaliseZoneName,
  recordDataProblem,
  recordNameProblem,
  recordsProblem,
  txtChunks,
  zoneNameProblem,
} from './dns-names.js';

describe('zone names', () => {
  it('accepts DNS names of two labels or more, with or without the final dot', () => {
    for (const name of ['example.com', 'example.com.', 'a-b.example.co.uk', 'xn--bcher-kva.de']) {
      expect(zoneNameProblem(name)).toBeNull();
    }
  });

  it('refuses single labels, bad labels, numeric top labels and over-long names', () => {
    expect(zoneNameProblem('com')).toMatch(/at least two labels/);
    expect(zoneNameProblem('com.')).toMatch(/at least two labels/);
    for (const name of ['-a.com', 'a-.com', 'a..com', 'a_b.com', 'bücher.de', '*.example.com']) {
      expect(zoneNameProblem(name)).toMatch(/labels of 1 to 63/);
    }
    expect(zoneNameProblem(`${'a'.repeat(64)}.com`)).toMatch(/labels of 1 to 63/);
    expect(zoneNameProblem('example.123')).toMatch(/all-digit/);
    expect(zoneNameProblem(`${Array(64).fill('abc').join('.')}.com`)).toMatch(/at most 253/);
    expect(zoneNameProblem('')).toMatch(/at most 253/);
    expect(zoneNameProblem('.')).toMatch(/at most 253/);
  });

  it("normalises to Designate's form: lower case with the final dot", () => {
    expect(normaliseZoneName('Example.COM')).toBe('example.com.');
    expect(normaliseZoneName('example.com.')).toBe('example.com.');
  });
});

describe('record owner names', () => {
  it('accepts @, relative, absolute, underscore and wildcard names', () => {
    for (const name of [
      '@',
      'www',
      'a.b',
      '_dmarc',
      '_sip._tcp',
      '*',
      '*.dev',
      'www.example.com.',
    ]) {
      expect(recordNameProblem(name)).toBeNull();
    }
    for (const name of ['', '.', 'a..b', 'www.*', '-x', 'x-', 'a b', 'ü']) {
      expect(recordNameProblem(name)).not.toBeNull();
    }
  });

  it('makes names absolute in the zone: @ is the apex, a final dot is absolute, else relative', () => {
    const zone = 'example.com.';
    expect(absoluteRecordName('@', zone)).toEqual({ name: 'example.com.' });
    expect(absoluteRecordName('www', zone)).toEqual({ name: 'www.example.com.' });
    expect(absoluteRecordName('WWW.Dev', zone)).toEqual({ name: 'www.dev.example.com.' });
    expect(absoluteRecordName('www.example.com.', zone)).toEqual({ name: 'www.example.com.' });
    expect(absoluteRecordName('example.com.', zone)).toEqual({ name: 'example.com.' });
    // Already ending in the zone's name: that name, not www.example.com.example.com.
    expect(absoluteRecordName('www.example.com', zone)).toEqual({ name: 'www.example.com.' });
    expect(absoluteRecordName('example.com', zone)).toEqual({ name: 'example.com.' });
    // The zone may be given without its dot too.
    expect(absoluteRecordName('www', 'Example.com')).toEqual({ name: 'www.example.com.' });
  });

  it('refuses absolute names outside the zone and names made too long', () => {
    expect(absoluteRecordName('www.example.org.', 'example.com.')).toEqual({
      problem: 'name www.example.org. is not in the zone example.com.',
    });
    // A suffix match must be on a label boundary.
    expect(absoluteRecordName('notexample.com.', 'example.com.')).toHaveProperty('problem');
    const long = Array(62).fill('abc').join('.');
    expect(absoluteRecordName(long, 'example.com.')).toHaveProperty(
      'problem',
      expect.stringMatching(/longer than 253/),
    );
  });
});

describe('record data per type', () => {
  const ok: Array<[Parameters<typeof recordDataProblem>[0], string]> = [
    ['A', '192.0.2.10'],
    ['AAAA', '2001:db8::10'],
    ['AAAA', '::ffff:192.0.2.1'],
    ['CNAME', 'target.example.net.'],
    ['CNAME', 'target.example.net'],
    ['CNAME', 's1._domainkey.mailer.example'],
    ['NS', 'ns1.example.net.'],
    ['PTR', 'host.example.com'],
    ['MX', '10 mail.example.com.'],
    ['MX', '0 .'],
    ['MX', '65535   mail.example.com'],
    ['SRV', '10 5 5060 sip.example.com.'],
    ['SRV', '0 0 0 .'],
    ['TXT', '"v=spf1 -all"'],
    ['TXT', '"part one" "part two"'],
    ['TXT', '"with \\"quotes\\" and \\\\ backslash"'],
    ['TXT', '""'],
    ['TXT', `"${'x'.repeat(255)}" "${'y'.repeat(255)}"`],
    ['CAA', '0 issue "letsencrypt.org"'],
    ['CAA', '128 iodef "mailto:security@example.com"'],
  ];
  it.each(ok)('accepts %s %s', (type, value) => {
    expect(recordDataProblem(type, value)).toBeNull();
  });

  const bad: Array<[Parameters<typeof recordDataProblem>[0], string, RegExp]> = [
    ['A', '2001:db8::1', /IPv4/],
    ['A', '256.1.1.1', /IPv4/],
    ['A', '192.0.2.010', /IPv4/],
    ['AAAA', '192.0.2.1', /IPv6/],
    ['AAAA', 'fe80::1%eth0', /IPv6/],
    ['CNAME', '192.0.2.1', /host name/],
    ['CNAME', 'has space.example.com', /host name/],
    ['CNAME', '-bad.example.com', /host name/],
    ['NS', '', /host name/],
    ['MX', 'mail.example.com', /priority/],
    ['MX', '70000 mail.example.com', /priority/],
    ['MX', '10 192.0.2.1', /priority/],
    ['SRV', '10 5 sip.example.com', /weight/],
    ['SRV', '10 5 70000 sip.example.com', /weight/],
    ['TXT', 'v=spf1 -all', /quoted strings/],
    ['TXT', '"unterminated', /quoted strings/],
    ['TXT', '"a""b"', /quoted strings/],
    ['TXT', '"trailing backslash\\', /quoted strings/],
    ['TXT', `"${'x'.repeat(256)}"`, /at most 255 bytes/],
    ['TXT', `"${'é'.repeat(128)}"`, /at most 255 bytes/],
    ['CAA', '0 issue letsencrypt.org', /CAA/],
    ['CAA', '256 issue "x"', /CAA/],
  ];
  it.each(bad)('refuses %s %s', (type, value, message) => {
    expect(recordDataProblem(type, value)).toMatch(message);
  });

  it('reads TXT character-strings with their escapes', () => {
    expect(txtChunks('"a b" "c\\"d"')).toEqual(['a b', 'c"d']);
    expect(txtChunks('"x"   "y" ')).toEqual(['x', 'y']);
    expect(txtChunks('')).toBeNull();
  });

  it('names the failing entry of a record set, and allows one CNAME only', () => {
    expect(recordsProblem('A', ['192.0.2.1', 'nope'])).toMatch(/^records\.1: an A record/);
    expect(recordsProblem('CNAME', ['a.example.', 'b.example.'])).toMatch(/exactly one record/);
    expect(recordsProblem('A', ['192.0.2.1', '192.0.2.2'])).toBeNull();
  });

  it('normalises targets to absolute names and numbers to plain form', () => {
    expect(normaliseRecordData('CNAME', 'target.example.net')).toBe('target.example.net.');
    expect(normaliseRecordData('CNAME', 'target.example.net.')).toBe('target.example.net.');
    expect(normaliseRecordData('MX', '010   mail.example.com')).toBe('10 mail.example.com.');
    expect(normaliseRecordData('MX', '0 .')).toBe('0 .');
    expect(normaliseRecordData('SRV', '1 2  3 sip.example.com')).toBe('1 2 3 sip.example.com.');
    expect(normaliseRecordData('CAA', '0 ISSUE "ca.example"')).toBe('0 issue "ca.example"');
    expect(normaliseRecordData('TXT', '"kept"  "as is"')).toBe('"kept"  "as is"');
    expect(normaliseRecordData('A', '192.0.2.1')).toBe('192.0.2.1');
  });
});
