import { describe, expect, it } from '@jest/globals';
import { CURRENT_API_VERSIONS, resolveApiVersion } from './api-versions.js';
import { deprecationHeaders } from './deprecated.decorator.js';

describe('resolveApiVersion', () => {
  it.each([undefined, '', ' '])('resolves %j to the default major', (header) => {
    expect(resolveApiVersion(CURRENT_API_VERSIONS, header)).toEqual({
      ok: true,
      version: { major: 1 },
    });
  });

  it('resolves an explicit supported major', () => {
    expect(resolveApiVersion(CURRENT_API_VERSIONS, '1')).toEqual({
      ok: true,
      version: { major: 1 },
    });
  });

  it.each(['2', '01x', '1.0', 'latest', '-1'])('refuses %j', (header) => {
    expect(resolveApiVersion(CURRENT_API_VERSIONS, header)).toEqual({
      ok: false,
      requested: header,
    });
  });
});

describe('deprecationHeaders', () => {
  it('formats RFC 9745, RFC 8594 and RFC 8288 headers', () => {
    expect(
      deprecationHeaders({
        deprecatedAt: new Date('2026-06-01T00:00:00Z'),
        sunset: new Date('2026-12-01T00:00:00Z'),
        guide: 'https://docs.example.com/guide',
      }),
    ).toEqual({
      Deprecation: '@1780272000',
      Sunset: 'Tue, 01 Dec 2026 00:00:00 GMT',
      Link: '<https://docs.example.com/guide>; rel="deprecation"',
    });
  });
});
