import type { OverwriteMode } from '../api/types.js';
import { RenderError } from './errors.js';
import { pathUnder, piped, POD_LAYOUT, restic, RETRY_LOCK, teed } from './restic.js';
import { PICK_SNAPSHOT_AWK, RESTORE_RESULT_AWK, SAMPLE_FILES_AWK } from './restic-awk.js';
import { raw, shellCommand, shellQuote } from './shell.js';

/**
 * The cutoff of "newest at or before `date`" as Unix seconds and nanoseconds. A date-time
 * without a UTC offset is taken as UTC, whatever the operator's local time zone.
 */
export function snapshotCutoff(date: string): { seconds: number; nanos: number } {
  const zoned = /T[\d:.]+$/i.test(date) ? `${date}Z` : date;
  const millis = Date.parse(zoned);
  if (!Number.isFinite(millis)) {
    throw new RenderError('InvalidSnapshotDate', `snapshotDate "${date}" is not a date-time`);
  }
  const fraction = /T\d{2}:\d{2}:\d{2}\.(\d+)/.exec(date)?.[1] ?? '';
  return {
    seconds: Math.floor(millis / 1000),
    nanos: Number(fraction.slice(0, 9).padEnd(9, '0')),
  };
}

/**
 * Finds the snapshot to use and leaves `snapshot_id` and `snapshot_time` set, failing with
 * `missing` when there is none. `restic snapshots --json` with awk replaces restic's own
 * `latest`, which cannot take a cutoff, and yields the snapshot's time for the result line.
 */
function pickSnapshot(
  select: { host?: string; snapshotId?: string; cutoff?: { seconds: number; nanos: number } },
  tmp: (name: string) => string,
  missing: string[],
): string[] {
  const snapshots = shellQuote(tmp('snapshots.json'));
  const picked = shellQuote(tmp('snapshot'));
  const list = select.snapshotId
    ? restic(true, 'snapshots', '--json', '--retry-lock', RETRY_LOCK, select.snapshotId)
    : restic(
        true,
        'snapshots',
        '--json',
        '--retry-lock',
        RETRY_LOCK,
        ...(select.host ? ['--host', select.host] : []),
      );
  const cutoff = select.cutoff;
  return [
    `${list} >${snapshots}`,
    shellCommand([
      'awk',
      '-v',
      `cutoff_s=${cutoff ? cutoff.seconds : ''}`,
      '-v',
      `cutoff_ns=${cutoff ? cutoff.nanos : ''}`,
      PICK_SNAPSHOT_AWK,
      raw(snapshots),
    ]) + ` >${picked}`,
    'snapshot_id=',
    'snapshot_time=',
    `read -r snapshot_id snapshot_time <${picked} || true`,
    'if [ -z "$snapshot_id" ]; then',
    ...missing.map((line) => `  ${line}`),
    'fi',
  ];
}

export interface RestoreTestScriptInput {
  host: string;
  fileCount: number;
  verifyChecksums: boolean;
}

/**
 * Restores up to `fileCount` files drawn at random from the host's newest snapshot. With
 * `verifyChecksums`, restic verifies what it wrote and each file whose source still has the
 * snapshot's modification time must match the source byte for byte (sha256); a file changed
 * since the snapshot is counted, not compared. Any mismatch or missing file fails the Job.
 * Result: `{"snapshot_id","snapshot_time","files_checked","files_verified","files_changed","mismatches"}`.
 */
export function restoreTestScript(input: RestoreTestScriptInput, layout = POD_LAYOUT): string {
  const tmp = (name: string) => `${layout.tmp}/${name}`;
  const run = `${layout.restoreTest}/run`;
  const sample = shellQuote(tmp('sample'));
  const termination = shellQuote(layout.terminationLog);
  const result =
    `printf '{"snapshot_id":"%s","snapshot_time":"%s","files_checked":%d,"files_verified":%d,"files_changed":%d,"mismatches":%d}\\n'` +
    ` "$snapshot_id" "$snapshot_time" "$checked" "$verified" "$changed" "$mismatches" >${termination}`;
  const nothingToTest = (why: string) => [`echo ${shellQuote(why)}`, result, 'exit 0'];
  const verify = input.verifyChecksums
    ? [
        '  if [ -f "$file" ] && [ "$(stat -c %Y "$file")" = "$(stat -c %Y "$restored")" ]; then',
        '    if [ "$(sha256sum <"$file")" = "$(sha256sum <"$restored")" ]; then',
        '      verified=$((verified + 1))',
        '    else',
        '      echo "checksum mismatch: $file" >&2',
        '      mismatches=$((mismatches + 1))',
        '    fi',
        '  else',
        '    changed=$((changed + 1))',
        '  fi',
      ]
    : [];
  return [
    'set -eu',
    'snapshot_id= snapshot_time= checked=0 verified=0 changed=0 mismatches=0',
    'status=0',
    `${restic(true, 'cat', 'config')} >/dev/null || status=$?`,
    'if [ "$status" -eq 10 ]; then',
    ...nothingToTest('the repository does not exist yet: nothing to test').map((l) => `  ${l}`),
    'elif [ "$status" -ne 0 ]; then',
    '  exit "$status"',
    'fi',
    ...pickSnapshot(
      { host: input.host },
      tmp,
      nothingToTest(`no snapshot of host ${input.host} yet: nothing to test`),
    ),
    'echo "testing snapshot $snapshot_id of $snapshot_time"',
    ...piped(
      restic(true, 'ls', '--json', '--retry-lock', RETRY_LOCK, raw('"$snapshot_id"')),
      shellCommand(['awk', '-v', `count=${input.fileCount}`, '-v', 'seed=', SAMPLE_FILES_AWK]) +
        ` >${sample}`,
      tmp('ls.status'),
    ),
    'set --',
    `while IFS= read -r file; do set -- "$@" --include "$file"; done <${sample}`,
    `rm -rf ${shellQuote(run)}`,
    `mkdir -p ${shellQuote(run)}`,
    'if [ "$#" -gt 0 ]; then',
    `  ${restic(
      true,
      'restore',
      '--retry-lock',
      RETRY_LOCK,
      raw('"$snapshot_id"'),
      '--target',
      run,
      ...(input.verifyChecksums ? ['--verify'] : []),
      raw('"$@"'),
    )}`,
    'fi',
    'while IFS= read -r file; do',
    '  checked=$((checked + 1))',
    `  restored=${shellQuote(run)}"$file"`,
    '  if [ ! -f "$restored" ]; then',
    '    echo "not restored: $file" >&2',
    '    mismatches=$((mismatches + 1))',
    '    continue',
    '  fi',
    ...verify,
    `done <${sample}`,
    `rm -rf ${shellQuote(run)}`,
    'if [ "$mismatches" -gt 0 ]; then',
    '  echo "restore test failed: $mismatches of $checked files missing or different" >&2',
    '  exit 1',
    'fi',
    'echo "restore test passed: $checked files restored, $verified verified, $changed changed since the snapshot"',
    result,
  ].join('\n');
}

export interface RestoreScriptInput {
  /** Only snapshots of this host are considered, unless `snapshotId` names one. */
  host?: string;
  snapshotId?: string;
  /** The newest snapshot at or before this instant (RFC 3339); the newest of all when absent. */
  snapshotDate?: string;
  /** Relative to the claim's root; `/` (or none) restores everything. */
  paths: readonly string[];
  exclude: readonly string[];
  targetPath: string;
  overwrite: OverwriteMode;
}

/** Include patterns of a restore: none when it covers the whole claim. */
export function restoreIncludes(paths: readonly string[]): string[] {
  const normalized = [...new Set(paths.map((path) => pathUnder('', path) || '/'))];
  return normalized.length === 0 || normalized.includes('/') ? [] : normalized;
}

/**
 * Restores the snapshot's claim directory into the target claim. restic's progress lines go to
 * the log; the result line is
 * `{"snapshot_id","snapshot_time","files_restored","bytes_restored"}`.
 */
export function restoreScript(input: RestoreScriptInput, layout = POD_LAYOUT): string {
  const tmp = (name: string) => `${layout.tmp}/${name}`;
  const includes = restoreIncludes(input.paths);
  if (includes.length > 0 && input.exclude.length > 0) {
    throw new RenderError(
      'IncludeExcludeConflict',
      'restic restores either selected paths or everything minus exclude patterns: set restoreSpec.paths to / to use restoreSpec.exclude',
    );
  }
  const target = pathUnder(layout.restore, input.targetPath);
  const cutoff =
    input.snapshotId || !input.snapshotDate ? undefined : snapshotCutoff(input.snapshotDate);
  const what = input.snapshotId
    ? `snapshot ${input.snapshotId}`
    : `snapshot${input.host ? ` of host ${input.host}` : ''}${cutoff ? ` at or before ${input.snapshotDate}` : ''}`;
  const restore = restic(
    true,
    'restore',
    '--json',
    '--retry-lock',
    RETRY_LOCK,
    raw(`"$snapshot_id":${shellQuote(layout.data)}`),
    '--target',
    target,
    '--overwrite',
    input.overwrite,
    ...includes.flatMap((path) => ['--include', path]),
    ...input.exclude.flatMap((pattern) => ['--exclude', pattern]),
  );
  return [
    'set -eu',
    ...pickSnapshot({ host: input.host, snapshotId: input.snapshotId, cutoff }, tmp, [
      `echo ${shellQuote(`no ${what} found`)} >&2`,
      'exit 1',
    ]),
    `echo "restoring snapshot $snapshot_id of $snapshot_time into "${shellQuote(target)}`,
    ...teed(restore, tmp('restore.jsonl'), tmp('restore.status')),
    shellCommand([
      'awk',
      '-v',
      raw('id="$snapshot_id"'),
      '-v',
      raw('time="$snapshot_time"'),
      RESTORE_RESULT_AWK,
      tmp('restore.jsonl'),
    ]) + ` >${shellQuote(tmp('result.json'))}`,
    `if [ ! -s ${shellQuote(tmp('result.json'))} ]; then echo 'restic restore printed no summary' >&2; exit 1; fi`,
    `cat ${shellQuote(tmp('result.json'))} >${shellQuote(layout.terminationLog)}`,
  ].join('\n');
}
