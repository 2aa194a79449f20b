import { describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { snapshotCutoff } from './restic-restore.js';
import { PICK_SNAPSHOT_AWK, RESTORE_RESULT_AWK, SAMPLE_FILES_AWK } from './restic-awk.js';

/** Every awk on this machine, each held to POSIX where it can be: the image runs busybox awk. */
const AWKS: string[][] = [['awk'], ['mawk'], ['gawk', '--posix'], ['busybox', 'awk']].filter(
  ([command]) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0,
);

function runAwk(
  awk: string[],
  program: string,
  variables: Record<string, string | number>,
  input: string,
): string {
  const assignments = Object.entries(variables).flatMap(([key, value]) => [
    '-v',
    `${key}=${value}`,
  ]);
  return execFileSync(awk[0], [...awk.slice(1), ...assignments, program], {
    input,
    encoding: 'utf8',
  });
}

/** A snapshot as `restic snapshots --json` (0.18) prints it, fields in restic's order. */
function snapshot(id: string, time: string, hostname = 'shop-data') {
  return {
    time,
    tree: 'b1d2c3e4f5a60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90',
    paths: ['/data'],
    hostname,
    username: 'root',
    program_version: 'restic 0.18.1',
    summary: {
      backup_start: time,
      backup_end: time,
      files_new: 10,
      files_changed: 0,
      files_unmodified: 0,
      dirs_new: 2,
      dirs_changed: 0,
      dirs_unmodified: 0,
      data_blobs: 10,
      tree_blobs: 3,
      data_added: 4096,
      data_added_packed: 2048,
      total_files_processed: 10,
      total_bytes_processed: 4096,
    },
    id: id.padEnd(64, '0'),
    short_id: id.slice(0, 8),
  };
}

const A = snapshot('aaaaaaaa', '2025-05-30T03:00:05.1Z');
const B = snapshot('bbbbbbbb', '2025-05-31T05:00:04.5+02:00'); // 03:00:04.5 UTC
const C = snapshot('cccccccc', '2025-06-01T03:00:04.123456789Z');
const D = snapshot('dddddddd', '2025-05-31T22:30:00-04:00'); // 2025-06-01 02:30 UTC
const TRAP = snapshot(
  'eeeeeeee',
  '2025-05-29T00:00:00Z',
  'a"time":"2099-01-01T00:00:00Z","id":"ffff',
);
const LEAP = snapshot('0a0a0a0a', '2024-02-29T12:00:00Z');
const SNAPSHOTS = `${JSON.stringify([A, C, LEAP, TRAP, B, D])}\n`;

const picked = (s: ReturnType<typeof snapshot>) => `${s.id} ${s.time}\n`;

describe.each(AWKS.map((awk): [string, string[]] => [awk.join(' '), awk]))(
  'with %s',
  (_name, awk) => {
    const pick = (cutoff?: string, input = SNAPSHOTS) => {
      const at = cutoff === undefined ? undefined : snapshotCutoff(cutoff);
      return runAwk(
        awk,
        PICK_SNAPSHOT_AWK,
        { cutoff_s: at ? at.seconds : '', cutoff_ns: at ? at.nanos : '' },
        input,
      );
    };

    describe('the snapshot pick', () => {
      it('takes the newest snapshot without a cutoff, whatever the order', () => {
        expect(pick()).toBe(picked(C));
      });

      it.each([
        ['compares instants across UTC offsets', '2025-06-01T02:59:59Z', D],
        ['includes a snapshot taken exactly at the cutoff', '2025-06-01T02:30:00Z', D],
        ['reads the cutoff with its offset', '2025-05-31T22:30:00-04:00', D],
        ['excludes one taken a nanosecond later', '2025-06-01T02:29:59.999999999Z', B],
        ['compares nanoseconds', '2025-06-01T03:00:04.123456789Z', C],
        ['compares nanoseconds from below', '2025-06-01T03:00:04.123456788Z', D],
        ['handles fractions shorter than nanoseconds', '2025-05-31T03:00:04.5Z', B],
        ['takes the newest of those before', '2025-05-30T03:00:05.100000001Z', A],
        ['counts leap days', '2024-03-01T00:00:00+01:00', LEAP],
        ['takes a cutoff without offset as UTC', '2025-06-01T02:30:00', D],
      ])('%s', (_name, cutoff, expected) => {
        expect(pick(cutoff)).toBe(picked(expected));
      });

      it('is not fooled by a host name that looks like JSON keys', () => {
        expect(pick('2025-05-29T12:00:00Z')).toBe(picked(TRAP));
      });

      it.each([
        ['a cutoff before every snapshot', '2020-01-01T00:00:00Z', SNAPSHOTS],
        ['an empty repository', undefined, '[]\n'],
        ['no output at all', undefined, ''],
        ['an error message', undefined, 'Fatal: unable to open repository\n'],
        ['a time it cannot read', undefined, '[{"time":"yesterday","id":"abcdef01"}]'],
      ])('prints nothing for %s', (_name, cutoff, input) => {
        expect(pick(cutoff, input)).toBe('');
      });
    });

    describe('the file sample', () => {
      const node = (type: string, path: string) =>
        JSON.stringify({
          name: path.split('/').at(-1),
          type,
          path,
          uid: 0,
          gid: 0,
          size: 10,
          mode: 420,
          permissions: '-rw-r--r--',
          mtime: '2025-06-01T03:00:00Z',
          message_type: 'node',
          struct_type: 'node',
        });
      const listing = [
        JSON.stringify({
          time: '2025-06-01T03:00:04Z',
          paths: ['/data'],
          hostname: 'shop-data',
          id: 'c'.repeat(64),
          message_type: 'snapshot',
          struct_type: 'snapshot',
        }),
        node('dir', '/data'),
        node('dir', '/data/app'),
        node('file', '/data/app/a.txt'),
        node('file', '/data/app/with space.txt'),
        node('symlink', '/data/app/link'),
        node('file', '/data/app/quote"d.txt'),
        node('file', '/data/app/back\\slash'),
        node('file', '/data/app/new\nline'),
        // Go's encoder writes <, > and & as \u escapes.
        node('file', '/data/app/<html>&').replace(
          /<|>|&/g,
          (c) => `\\u00${c.charCodeAt(0).toString(16)}`,
        ),
        node('file', '/data/app/star*.txt'),
        node('file', '/data/app/[bracket]'),
        node('file', '/data/app/ümlaut ✓.txt'),
        node('file', '/data/app/"type":"file"'),
        node('file', '/data/b.bin'),
        '',
      ].join('\n');
      const eligible = [
        '/data/app/a.txt',
        '/data/app/with space.txt',
        '/data/app/ümlaut ✓.txt',
        '/data/b.bin',
      ];
      const sample = (count: number, seed: number | string) =>
        runAwk(awk, SAMPLE_FILES_AWK, { count, seed }, listing).split('\n').slice(0, -1);

      it('lists every plain regular file when the count allows, in listing order', () => {
        expect(sample(50, 1)).toEqual(eligible);
      });

      it('draws the count of distinct files', () => {
        const drawn = sample(2, 7);
        expect(drawn).toHaveLength(2);
        expect(new Set(drawn).size).toBe(2);
        for (const path of drawn) expect(eligible).toContain(path);
      });

      it('prints nothing for a snapshot without files', () => {
        expect(runAwk(awk, SAMPLE_FILES_AWK, { count: 5, seed: 1 }, node('dir', '/data'))).toBe('');
      });
    });

    describe('the restore result', () => {
      const variables = { id: 'c'.repeat(64), time: '2025-06-01T03:00:04.123456789Z' };

      it('turns restic summary into the result line', () => {
        const output = [
          '{"message_type":"status","seconds_elapsed":1,"percent_done":0.5,"total_files":4,"files_restored":2,"total_bytes":100,"bytes_restored":50}',
          '{"message_type":"summary","seconds_elapsed":2,"total_files":4,"files_restored":4,"total_bytes":100,"bytes_restored":100}',
          '',
        ].join('\n');
        expect(runAwk(awk, RESTORE_RESULT_AWK, variables, output)).toBe(
          `{"snapshot_id":"${'c'.repeat(64)}","snapshot_time":"2025-06-01T03:00:04.123456789Z","files_restored":4,"bytes_restored":100}\n`,
        );
      });

      it('writes zero for counters restic left out', () => {
        const output =
          '{"message_type":"summary","seconds_elapsed":0,"files_skipped":4,"total_files":4}\n';
        expect(JSON.parse(runAwk(awk, RESTORE_RESULT_AWK, variables, output))).toEqual({
          snapshot_id: 'c'.repeat(64),
          snapshot_time: '2025-06-01T03:00:04.123456789Z',
          files_restored: 0,
          bytes_restored: 0,
        });
      });

      it('prints nothing without a summary', () => {
        expect(runAwk(awk, RESTORE_RESULT_AWK, variables, 'Fatal: wrong password\n')).toBe('');
      });
    });
  },
);

describe('the file sample draw', () => {
  it('reaches every file, not only the first ones', () => {
    const listing = Array.from({ length: 6 }, (_, i) =>
      JSON.stringify({ name: `f${i}`, type: 'file', path: `/data/f${i}`, message_type: 'node' }),
    ).join('\n');
    const seen = new Set<string>();
    for (let seed = 1; seed <= 60; seed++) {
      for (const path of runAwk(['awk'], SAMPLE_FILES_AWK, { count: 2, seed }, listing).split(
        '\n',
      )) {
        if (path) seen.add(path);
      }
    }
    expect([...seen].sort()).toEqual([
      '/data/f0',
      '/data/f1',
      '/data/f2',
      '/data/f3',
      '/data/f4',
      '/data/f5',
    ]);
  });
});
