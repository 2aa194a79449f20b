import { describe, expect, it } from '@jest/globals';
import { loginKey } from './login-key.js';

describe('loginKey', () => {
  it('folds case, compatibility forms and the dotted and dotless i to one key', () => {
    for (const spelling of [
      'ida@example.com',
      ' IDA@Example.COM ',
      'İDA@example.com',
      'İda@example.com',
      'ıda@example.com',
      'ＩＤＡ@ｅｘａｍｐｌｅ.ｃｏｍ',
    ]) {
      expect(loginKey(spelling)).toBe('ida@example.com');
    }
  });

  it('folds the sharp s and its capital to ss', () => {
    expect(loginKey('straße@example.de')).toBe('strasse@example.de');
    expect(loginKey('STRAẞE@example.de')).toBe('strasse@example.de');
  });

  it('keeps different logins apart', () => {
    expect(loginKey('ada@example.com')).not.toBe(loginKey('ida@example.com'));
    expect(loginKey('a.da@example.com')).not.toBe(loginKey('ada@example.com'));
  });
});
