import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { raw, shellCommand, shellQuote } from './shell.js';

/** What `sh` receives as arguments after word splitting and quote removal. */
function wordsSeenByShell(commandLine: string, prelude = ''): string[] {
  const script = `${prelude}printf '%s\\0' ${commandLine}`;
  const output = execFileSync('sh', ['-c', script], { encoding: 'utf8' });
  return output.split('\0').slice(0, -1);
}

describe('shellQuote', () => {
  it.each([
    ['plain words stay bare', '/data/app', '/data/app'],
    ['flags with values stay bare', '--read-data-subset=10%', '--read-data-subset=10%'],
    ['the empty string is quoted', '', "''"],
    ['spaces are quoted', 'my file', "'my file'"],
    ['single quotes are closed, escaped and reopened', "it's", "'it'\\''s'"],
    ['globs are quoted', '*.tmp', "'*.tmp'"],
  ])('%s', (_name, value, quoted) => {
    expect(shellQuote(value)).toBe(quoted);
  });

  it('gives the shell back exactly the original strings', () => {
    const nasty = [
      'with space',
      "it's",
      "''",
      '"double"',
      '$HOME and $(touch /tmp/pwned) and `id`',
      'back\\slash\\n',
      'glob * ? [a-z]',
      'semi; rm -rf /; echo',
      'new\nline',
      'tab\there',
      '-n',
      '~user',
      'ümlaut ✓',
      '',
      '!history',
    ];
    expect(wordsSeenByShell(nasty.map(shellQuote).join(' '))).toEqual(nasty);
  });
});

describe('shellCommand', () => {
  it('quotes plain words and keeps raw ones', () => {
    const line = shellCommand(['restic', 'restore', raw('"$snapshot_id"'), '--target', '/x y']);
    expect(line).toBe(`restic restore "$snapshot_id" --target '/x y'`);
    expect(wordsSeenByShell(line, "snapshot_id='a b'; ")).toEqual([
      'restic',
      'restore',
      'a b',
      '--target',
      '/x y',
    ]);
  });
});
