import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { backupScript, checkScript, type ContainerLayout } from './restic.js';
import { restoreScript, restoreTestScript } from './restic-restore.js';

/**
 * The scripts run for real under `sh`, against a stand-in `restic` that records its arguments
 * and answers from files the test prepares. The scratch directory's name has a space and a
 * quote in it, so every path the scripts build is a quoting test too.
 */
const FAKE_RESTIC = `#!/bin/sh
n=$(( $(cat "$STUB/calls" 2>/dev/null || echo 0) + 1 ))
echo "$n" >"$STUB/calls"
printf '%s\\n' "$@" >"$STUB/call-$n"
for arg; do case "$arg" in --*) ;; *) command=$arg; break ;; esac; done
answer() { [ -f "$STUB/$1.out" ] && cat "$STUB/$1.out"; [ -f "$STUB/$1.err" ] && cat "$STUB/$1.err" >&2; exit "$(cat "$STUB/$1.status" 2>/dev/null || echo 0)"; }
if [ "$command" = restore ]; then
  prev=
  for arg; do
    [ "$prev" = --target ] && target=$arg
    if [ "$prev" = --include ] && [ -f "$STUB/snapshot$arg" ]; then
      mkdir -p "$target$(dirname "$arg")"
      cp -p "$STUB/snapshot$arg" "$target$arg"
    fi
    prev=$arg
  done
fi
answer "$command"
`;

/**
 * The image's shell is busybox ash with busybox tools; where busybox is installed the scripts
 * run there too, with its applets ahead of the system's on the PATH.
 */
const BUSYBOX_APPLETS = [
  'awk',
  'cat',
  'grep',
  'mkdir',
  'printf',
  'rm',
  'sha256sum',
  'stat',
  'tail',
  'tee',
];
const SHELLS: Array<[string, string[]]> = [
  ['sh', ['sh']],
  ['busybox sh', ['busybox', 'sh']],
].filter(([, [command]]) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0) as Array<
  [string, string[]]
>;

describe.each(SHELLS)('under %s', (_name, shell) => {
  let root: string;
  let stub: string;
  let layout: ContainerLayout;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "restic script's run "));
    stub = join(root, 'stub');
    layout = {
      data: join(root, 'data'),
      cache: join(root, 'cache'),
      restore: join(root, 'restore'),
      restoreTest: join(root, 'restore-test'),
      tmp: join(root, 'tmp'),
      terminationLog: join(root, 'termination-log'),
    };
    for (const dir of [stub, join(root, 'bin'), layout.data, layout.restoreTest, layout.tmp]) {
      mkdirSync(dir, { recursive: true });
    }
    writeFileSync(join(root, 'bin', 'restic'), FAKE_RESTIC);
    chmodSync(join(root, 'bin', 'restic'), 0o755);
    if (shell[0] === 'busybox') {
      for (const applet of BUSYBOX_APPLETS)
        symlinkSync('/usr/bin/busybox', join(root, 'bin', applet));
    }
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function answer(command: string, reply: { out?: string; err?: string; status?: number }): void {
    if (reply.out !== undefined) writeFileSync(join(stub, `${command}.out`), reply.out);
    if (reply.err !== undefined) writeFileSync(join(stub, `${command}.err`), reply.err);
    if (reply.status !== undefined)
      writeFileSync(join(stub, `${command}.status`), String(reply.status));
  }

  function run(script: string) {
    const result = spawnSync(shell[0], [...shell.slice(1), '-c', script], {
      encoding: 'utf8',
      env: { PATH: `${join(root, 'bin')}:${process.env.PATH}`, STUB: stub },
    });
    const count = existsSync(join(stub, 'calls'))
      ? Number(readFileSync(join(stub, 'calls'), 'utf8'))
      : 0;
    const calls = Array.from({ length: count }, (_, i) =>
      readFileSync(join(stub, `call-${i + 1}`), 'utf8')
        .split('\n')
        .slice(0, -1),
    );
    const terminationLog = existsSync(layout.terminationLog)
      ? readFileSync(layout.terminationLog, 'utf8')
      : undefined;
    return {
      status: result.status,
      stdout: result.stdout,
      stderr: result.stderr,
      calls,
      terminationLog,
    };
  }

  const SNAPSHOT_ID = 'c'.repeat(64);
  const BACKUP_STATUS =
    '{"message_type":"status","percent_done":0.5,"total_files":2,"files_done":1}';
  const BACKUP_SUMMARY = `{"message_type":"summary","files_new":2,"total_bytes_processed":2048,"total_duration":1.5,"snapshot_id":"${SNAPSHOT_ID}"}`;

  describe('backup script', () => {
    const input = {
      host: "shop's data",
      paths: ['app', "it's here", '../escape'],
      exclude: ['/app/cache', '*.tmp'],
      retention: { keepLast: 3, keepDaily: 0, keepWeekly: 4 },
      noCache: false,
    };

    it('initialises a missing repository, backs up, prunes and reports the summary', () => {
      answer('cat', { status: 10, err: 'Fatal: repository does not exist\n' });
      answer('backup', { out: `${BACKUP_STATUS}\n${BACKUP_SUMMARY}\n` });
      const result = run(backupScript(input, layout));
      expect(result.status).toBe(0);
      expect(result.calls).toEqual([
        ['cat', 'config'],
        ['init'],
        [
          'backup',
          '--json',
          '--retry-lock',
          '30m',
          '--host',
          "shop's data",
          '--exclude',
          `${layout.data}/app/cache`,
          '--exclude',
          '*.tmp',
          `${layout.data}/app`,
          `${layout.data}/it's here`,
          `${layout.data}/escape`,
        ],
        [
          'forget',
          '--retry-lock',
          '30m',
          '--host',
          "shop's data",
          '--group-by',
          'host',
          '--keep-last',
          '3',
          '--keep-weekly',
          '4',
          '--prune',
        ],
      ]);
      expect(result.stdout).toContain(`${BACKUP_STATUS}\n${BACKUP_SUMMARY}\n`);
      expect(result.terminationLog).toBe(`${BACKUP_SUMMARY}\n`);
    });

    it('uses an existing repository as it is', () => {
      answer('backup', { out: `${BACKUP_SUMMARY}\n` });
      const result = run(backupScript(input, layout));
      expect(result.status).toBe(0);
      expect(result.calls.map((call) => call[0])).toEqual(['cat', 'backup', 'forget']);
    });

    it('stops with restic exit status when the repository cannot be opened', () => {
      answer('cat', { status: 12, err: 'Fatal: wrong password or no key found\n' });
      const result = run(backupScript(input, layout));
      expect(result.status).toBe(12);
      expect(result.stderr).toContain('Fatal: wrong password or no key found');
      expect(result.calls).toEqual([['cat', 'config']]);
      expect(result.terminationLog).toBeUndefined();
    });

    it('fails with restic status when the backup fails, reporting nothing and pruning nothing', () => {
      answer('backup', { status: 3, err: 'error: open /data/app/x: permission denied\n' });
      const result = run(backupScript(input, layout));
      expect(result.status).toBe(3);
      expect(result.calls.map((call) => call[0])).toEqual(['cat', 'backup']);
      expect(result.terminationLog).toBeUndefined();
    });

    it('fails when restic printed no summary', () => {
      answer('backup', { out: `${BACKUP_STATUS}\n` });
      const result = run(backupScript(input, layout));
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('restic backup printed no summary');
      expect(result.calls.map((call) => call[0])).toEqual(['cat', 'backup']);
    });

    it('leaves restic error as the message when pruning fails', () => {
      answer('backup', { out: `${BACKUP_SUMMARY}\n` });
      answer('forget', { status: 11, err: 'Fatal: unable to create lock in backend\n' });
      const result = run(backupScript(input, layout));
      expect(result.status).toBe(11);
      expect(result.terminationLog).toBeUndefined();
    });

    it('does not forget without retention and runs without cache when there is none', () => {
      answer('backup', { out: `${BACKUP_SUMMARY}\n` });
      const result = run(
        backupScript({ host: 'h', paths: ['/'], exclude: [], noCache: true }, layout),
      );
      expect(result.status).toBe(0);
      expect(result.calls).toEqual([
        ['--no-cache', 'cat', 'config'],
        ['--no-cache', 'backup', '--json', '--retry-lock', '30m', '--host', 'h', layout.data],
      ]);
      expect(result.terminationLog).toBe(`${BACKUP_SUMMARY}\n`);
    });
  });

  describe('check script', () => {
    const summary =
      '{"message_type":"summary","num_errors":0,"suggest_repair_index":false,"suggest_prune":false}';

    it('checks the subset and reports restic summary', () => {
      answer('check', { out: `using temporary cache\n${summary}\n` });
      const result = run(checkScript({ readDataSubset: '2/5' }, layout));
      expect(result.status).toBe(0);
      expect(result.calls).toEqual([
        ['check', '--json', '--retry-lock', '30m', '--read-data-subset=2/5'],
      ]);
      expect(result.terminationLog).toBe(`${summary}\n`);
    });

    it('fails with restic status when the check finds errors', () => {
      answer('check', { status: 1, err: 'Fatal: repository contains errors\n' });
      const result = run(checkScript({ readDataSubset: '10%' }, layout));
      expect(result.status).toBe(1);
      expect(result.terminationLog).toBeUndefined();
    });
  });

  const snapshotsJson = (snapshots: Array<[string, string]>) =>
    JSON.stringify(snapshots.map(([id, time]) => ({ time, paths: ['/data'], hostname: 'h', id }))) +
    '\n';
  const OLD = ['a'.repeat(64), '2025-05-31T03:00:00Z'] as [string, string];
  const NEW = ['b'.repeat(64), '2025-06-01T05:00:00+02:00'] as [string, string];
  const RESTORE_OUTPUT =
    '{"message_type":"status","percent_done":0.5,"total_files":2,"files_restored":1,"total_bytes":10,"bytes_restored":5}\n' +
    '{"message_type":"summary","total_files":2,"files_restored":2,"total_bytes":10,"bytes_restored":10}\n';

  describe('restore script', () => {
    const input = {
      host: "shop's data",
      paths: ['/app', "it's"],
      exclude: [],
      targetPath: 'x y/',
      overwrite: 'if-newer' as const,
    };

    it('restores the newest snapshot at or before the date and reports the result', () => {
      answer('snapshots', { out: snapshotsJson([OLD, NEW]) });
      answer('restore', { out: RESTORE_OUTPUT });
      const result = run(restoreScript({ ...input, snapshotDate: '2025-06-01T02:59:59Z' }, layout));
      expect(result.status).toBe(0);
      expect(result.calls).toEqual([
        ['--no-cache', 'snapshots', '--json', '--retry-lock', '30m', '--host', "shop's data"],
        [
          '--no-cache',
          'restore',
          '--json',
          '--retry-lock',
          '30m',
          `${OLD[0]}:${layout.data}`,
          '--target',
          `${layout.restore}/x y`,
          '--overwrite',
          'if-newer',
          '--include',
          '/app',
          '--include',
          "/it's",
        ],
      ]);
      expect(result.stdout).toContain(RESTORE_OUTPUT);
      expect(JSON.parse(result.terminationLog!)).toEqual({
        snapshot_id: OLD[0],
        snapshot_time: OLD[1],
        files_restored: 2,
        bytes_restored: 10,
      });
    });

    it('restores the newest snapshot without a date, and a named one of any host', () => {
      answer('snapshots', { out: snapshotsJson([OLD, NEW]) });
      answer('restore', { out: RESTORE_OUTPUT });
      expect(JSON.parse(run(restoreScript(input, layout)).terminationLog!).snapshot_id).toBe(
        NEW[0],
      );

      rmSync(join(stub, 'calls'));
      answer('snapshots', { out: snapshotsJson([NEW]) });
      const named = run(restoreScript({ ...input, snapshotId: 'bbbbbbbb' }, layout));
      expect(named.status).toBe(0);
      expect(named.calls[0]).toEqual([
        '--no-cache',
        'snapshots',
        '--json',
        '--retry-lock',
        '30m',
        'bbbbbbbb',
      ]);
      expect(named.calls[1][5]).toBe(`${NEW[0]}:${layout.data}`);
    });

    it('fails when no snapshot matches', () => {
      answer('snapshots', { out: snapshotsJson([NEW]) });
      const result = run(restoreScript({ ...input, snapshotDate: '2025-06-01T02:59:59Z' }, layout));
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(
        "no snapshot of host shop's data at or before 2025-06-01T02:59:59Z found",
      );
      expect(result.calls).toHaveLength(1);
      expect(result.terminationLog).toBeUndefined();
    });

    it('fails with restic status when the restore fails', () => {
      answer('snapshots', { out: snapshotsJson([NEW]) });
      answer('restore', { status: 1, err: 'Fatal: failed to restore\n' });
      const result = run(restoreScript({ ...input, paths: ['/'], exclude: ['*.log'] }, layout));
      expect(result.status).toBe(1);
      expect(result.calls[1].slice(-4)).toEqual(['--overwrite', 'if-newer', '--exclude', '*.log']);
      expect(result.terminationLog).toBeUndefined();
    });

    it('fails when restic printed no summary', () => {
      answer('snapshots', { out: snapshotsJson([NEW]) });
      const result = run(restoreScript(input, layout));
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('restic restore printed no summary');
    });
  });

  describe('restore test script', () => {
    const files = ['/app/a.txt', '/app/b c.txt', '/app/changed.txt'];
    let listing: string;

    /** Source files, and the same files as the snapshot holds them (same content and times). */
    beforeEach(() => {
      for (const file of files) {
        const source = `${layout.data}${file}`;
        mkdirSync(dirname(source), { recursive: true });
        writeFileSync(source, `content of ${file}\n`);
        utimesSync(source, new Date('2025-06-01T01:00:00Z'), new Date('2025-06-01T01:00:00Z'));
        const held = `${stub}/snapshot${source}`;
        mkdirSync(dirname(held), { recursive: true });
        cpSync(source, held, { preserveTimestamps: true });
      }
      writeFileSync(`${layout.data}/app/changed.txt`, 'written after the snapshot\n');
      listing = files
        .map((file) => JSON.stringify({ name: file, type: 'file', path: `${layout.data}${file}` }))
        .join('\n');
      answer('snapshots', { out: snapshotsJson([OLD, NEW]) });
      answer('ls', { out: `${listing}\n` });
    });

    const input = { host: 'shop-data', fileCount: 50, verifyChecksums: true };

    it('restores the sample, verifies unchanged files and counts changed ones', () => {
      const result = run(restoreTestScript(input, layout));
      expect(result.status).toBe(0);
      expect(result.calls).toEqual([
        ['--no-cache', 'cat', 'config'],
        ['--no-cache', 'snapshots', '--json', '--retry-lock', '30m', '--host', 'shop-data'],
        ['--no-cache', 'ls', '--json', '--retry-lock', '30m', NEW[0]],
        [
          '--no-cache',
          'restore',
          '--retry-lock',
          '30m',
          NEW[0],
          '--target',
          `${layout.restoreTest}/run`,
          '--verify',
          ...files.flatMap((file) => ['--include', `${layout.data}${file}`]),
        ],
      ]);
      expect(JSON.parse(result.terminationLog!)).toEqual({
        snapshot_id: NEW[0],
        snapshot_time: NEW[1],
        files_checked: 3,
        files_verified: 2,
        files_changed: 1,
        mismatches: 0,
      });
      expect(readdirSync(layout.restoreTest)).toEqual([]);
    });

    it('fails on a file whose content differs while its time does not', () => {
      const held = `${stub}/snapshot${layout.data}/app/a.txt`;
      writeFileSync(held, 'bit rot\n');
      utimesSync(held, new Date('2025-06-01T01:00:00Z'), new Date('2025-06-01T01:00:00Z'));
      const result = run(restoreTestScript(input, layout));
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`checksum mismatch: ${layout.data}/app/a.txt`);
      expect(result.stderr).toContain('restore test failed: 1 of 3 files missing or different');
      expect(result.terminationLog).toBeUndefined();
    });

    it('fails on a file restic did not restore', () => {
      rmSync(`${stub}/snapshot${layout.data}/app/b c.txt`);
      const result = run(restoreTestScript(input, layout));
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`not restored: ${layout.data}/app/b c.txt`);
    });

    it('only restores without checksums', () => {
      const result = run(
        restoreTestScript({ ...input, fileCount: 2, verifyChecksums: false }, layout),
      );
      expect(result.status).toBe(0);
      expect(result.calls[3]).not.toContain('--verify');
      expect(result.calls[3].filter((word) => word === '--include')).toHaveLength(2);
      expect(JSON.parse(result.terminationLog!)).toMatchObject({
        files_checked: 2,
        files_verified: 0,
        files_changed: 0,
        mismatches: 0,
      });
    });

    it('has nothing to test before the first backup', () => {
      answer('cat', { status: 10 });
      const missing = run(restoreTestScript(input, layout));
      expect(missing.status).toBe(0);
      expect(missing.stdout).toContain('the repository does not exist yet: nothing to test');
      expect(missing.calls).toHaveLength(1);
      expect(JSON.parse(missing.terminationLog!)).toEqual({
        snapshot_id: '',
        snapshot_time: '',
        files_checked: 0,
        files_verified: 0,
        files_changed: 0,
        mismatches: 0,
      });

      answer('cat', { status: 0 });
      answer('snapshots', { out: '[]\n' });
      const empty = run(restoreTestScript(input, layout));
      expect(empty.status).toBe(0);
      expect(empty.stdout).toContain('no snapshot of host shop-data yet: nothing to test');
    });

    it('fails with restic status when listing fails', () => {
      answer('ls', { status: 1, out: '' });
      const result = run(restoreTestScript(input, layout));
      expect(result.status).toBe(1);
      expect(result.calls).toHaveLength(3);
    });
  });
});
