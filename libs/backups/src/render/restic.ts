import { posix } from 'node:path';
import type { RetentionSpec } from '../api/types.js';
import { type RawWord, shellCommand, shellQuote } from './shell.js';

/**
 * The shell scripts the restic containers run (`sh -c <script>`, POSIX sh and busybox tools);
 * the restore and restore-test scripts are in restic-restore.ts.
 * Each writes one JSON line to the termination log when it succeeds and nothing when it fails,
 * so a failed container's message is the tail of its log (FallbackToLogsOnError).
 */

/** Where things are inside the container; tests point these at temporary directories. */
export interface ContainerLayout {
  /** The backed-up claim; snapshots record their paths under it. */
  data: string;
  cache: string;
  /** The claim a restore writes into. */
  restore: string;
  restoreTest: string;
  tmp: string;
  terminationLog: string;
}

export const POD_LAYOUT: ContainerLayout = {
  data: '/data',
  cache: '/cache',
  restore: '/restore',
  restoreTest: '/restore-test',
  tmp: '/tmp',
  terminationLog: '/dev/termination-log',
};

/** How long a command waits for another run's exclusive lock (prune, check) before failing. */
export const RETRY_LOCK = '30m';

const RETENTION_FLAGS: Array<[keyof RetentionSpec, string]> = [
  ['keepLast', '--keep-last'],
  ['keepDaily', '--keep-daily'],
  ['keepWeekly', '--keep-weekly'],
  ['keepMonthly', '--keep-monthly'],
  ['keepYearly', '--keep-yearly'],
];

/** A path relative to the claim's root as an absolute path under `root`; `..` cannot leave it. */
export function pathUnder(root: string, path: string): string {
  const inside = posix.normalize(`/${path}`).replace(/\/+$/, '');
  return `${root}${inside}`;
}

/** Claim-relative paths as absolute ones; a path at the root makes the others redundant. */
export function backupPaths(root: string, paths: readonly string[]): string[] {
  const absolute = [...new Set(paths.map((path) => pathUnder(root, path)))];
  return absolute.length === 0 || absolute.includes(root) ? [root] : absolute;
}

/** Anchored patterns (leading `/`) are anchored at the claim's root; others match anywhere. */
export function excludePattern(root: string, pattern: string): string {
  return pattern.startsWith('/') ? `${root}${pattern}` : pattern;
}

/** restic's forget flags for the retention fields that keep something (0 keeps nothing). */
export function retentionFlags(retention: RetentionSpec | undefined): string[] {
  return RETENTION_FLAGS.flatMap(([field, flag]) => {
    const count = retention?.[field];
    return typeof count === 'number' && count > 0 ? [flag, String(count)] : [];
  });
}

/** A restic command line; `noCache` adds the global --no-cache. */
export function restic(noCache: boolean, ...words: Array<string | RawWord>): string {
  return shellCommand(['restic', ...(noCache ? ['--no-cache'] : []), ...words]);
}

/** `producer | consumer` keeping the producer's exit status (POSIX sh has no pipefail). */
export function piped(producer: string, consumer: string, statusFile: string): string[] {
  return [
    `{ ${producer} || echo "$?" >${shellQuote(statusFile)}; } | ${consumer}`,
    `if [ -s ${shellQuote(statusFile)} ]; then exit "$(cat ${shellQuote(statusFile)})"; fi`,
  ];
}

/** `command` with its output shown in the log and kept in `file`. */
export function teed(command: string, file: string, statusFile: string): string[] {
  return piped(command, `tee ${shellQuote(file)}`, statusFile);
}

export interface BackupScriptInput {
  host: string;
  /** Relative to the claim's root. */
  paths: readonly string[];
  exclude: readonly string[];
  retention?: RetentionSpec;
  /** No persistent cache: restic runs with --no-cache. */
  noCache: boolean;
}

/**
 * Initialises the repository on first use (restic exits 10 when there is none), backs up the
 * paths, keeps restic's summary line, applies the retention with --prune when any is set, and
 * only then reports the summary, so a failed forget leaves restic's error as the message.
 */
export function backupScript(input: BackupScriptInput, layout = POD_LAYOUT): string {
  const tmp = (name: string) => `${layout.tmp}/${name}`;
  const configLog = shellQuote(tmp('cat-config.log'));
  const summary = shellQuote(tmp('summary.json'));
  const retention = retentionFlags(input.retention);
  const backup = restic(
    input.noCache,
    'backup',
    '--json',
    '--retry-lock',
    RETRY_LOCK,
    '--host',
    input.host,
    ...input.exclude.flatMap((pattern) => ['--exclude', excludePattern(layout.data, pattern)]),
    ...backupPaths(layout.data, input.paths),
  );
  return [
    'set -eu',
    'status=0',
    `${restic(input.noCache, 'cat', 'config')} >/dev/null 2>${configLog} || status=$?`,
    'if [ "$status" -eq 10 ]; then',
    "  echo 'the repository does not exist yet: initialising it'",
    `  ${restic(input.noCache, 'init')}`,
    'elif [ "$status" -ne 0 ]; then',
    `  cat ${configLog} >&2`,
    '  exit "$status"',
    'fi',
    ...teed(backup, tmp('backup.jsonl'), tmp('backup.status')),
    `grep '"message_type":"summary"' ${shellQuote(tmp('backup.jsonl'))} | tail -n 1 >${summary}`,
    `if [ ! -s ${summary} ]; then echo 'restic backup printed no summary' >&2; exit 1; fi`,
    ...(retention.length > 0
      ? [
          restic(
            input.noCache,
            'forget',
            '--retry-lock',
            RETRY_LOCK,
            '--host',
            input.host,
            '--group-by',
            'host',
            ...retention,
            '--prune',
          ),
        ]
      : []),
    `cat ${summary} >${shellQuote(layout.terminationLog)}`,
  ].join('\n');
}

/** `restic check --read-data-subset`; reports restic's check summary line when it prints one. */
export function checkScript(input: { readDataSubset: string }, layout = POD_LAYOUT): string {
  const tmp = (name: string) => `${layout.tmp}/${name}`;
  const summary = shellQuote(tmp('summary.json'));
  const check = restic(
    false,
    'check',
    '--json',
    '--retry-lock',
    RETRY_LOCK,
    `--read-data-subset=${input.readDataSubset}`,
  );
  return [
    'set -eu',
    ...teed(check, tmp('check.jsonl'), tmp('check.status')),
    `grep '"message_type":"summary"' ${shellQuote(tmp('check.jsonl'))} | tail -n 1 >${summary}`,
    `cat ${summary} >${shellQuote(layout.terminationLog)}`,
  ].join('\n');
}
