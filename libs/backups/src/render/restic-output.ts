/**
 * Readers of what the restic containers leave behind: the JSON line each writes to its
 * termination message, and restic's `--json` status lines in the container log.
 */

export interface BackupSummary {
  snapshotId: string;
  /** Data processed by the backup as a binary quantity, e.g. "1.5Gi". */
  volumeSize: string;
  totalBytesProcessed: number;
  filesNew: number;
  filesChanged: number;
  filesUnmodified: number;
  dataAdded: number;
  durationSeconds: number;
}

export interface RestoreProgress {
  filesTotal: number;
  filesRestored: number;
  bytesTotal: number;
  bytesRestored: number;
  /** 0..100, two decimals. */
  percentComplete: number;
}

export interface RestoreSummary {
  snapshotId: string;
  /** RFC 3339 in UTC; absent when the message carried no readable time. */
  snapshotDate?: string;
  filesRestored: number;
  bytesRestored: number;
}

const SNAPSHOT_ID = /^[0-9a-f]{8,64}$/;
const BINARY_UNITS = ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/**
 * A byte count as a Kubernetes binary quantity: below 1024 the plain number ("512"), else the
 * largest unit that keeps the value at or above 1, rounded half up to one decimal with a
 * trailing ".0" dropped ("1.5Gi", "1Gi"). A value that rounds up to 1024 moves to the next unit.
 */
export function formatBinaryQuantity(bytes: number): string {
  const whole = Math.max(0, Math.floor(bytes));
  if (whole < 1024) return String(whole);
  let value = whole;
  let unit = -1;
  while (value >= 1024 && unit < BINARY_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  let rounded = Math.round(value * 10) / 10;
  if (rounded >= 1024 && unit < BINARY_UNITS.length - 1) {
    rounded = Math.round((value / 1024) * 10) / 10;
    unit += 1;
  }
  return `${rounded}${BINARY_UNITS[unit]}`;
}

/** restic's backup summary (`"message_type":"summary"`), from the last line that is one. */
export function parseBackupSummary(
  terminationMessage: string | undefined,
): BackupSummary | undefined {
  for (const line of jsonLinesNewestFirst(terminationMessage)) {
    if (line.message_type !== 'summary' || !isSnapshotId(line.snapshot_id)) continue;
    const counts = counters(line, [
      'total_bytes_processed',
      'files_new',
      'files_changed',
      'files_unmodified',
      'data_added',
      'total_duration',
    ]);
    if (!counts) continue;
    return {
      snapshotId: line.snapshot_id,
      volumeSize: formatBinaryQuantity(counts.total_bytes_processed),
      totalBytesProcessed: counts.total_bytes_processed,
      filesNew: counts.files_new,
      filesChanged: counts.files_changed,
      filesUnmodified: counts.files_unmodified,
      dataAdded: counts.data_added,
      durationSeconds: counts.total_duration,
    };
  }
  return undefined;
}

/**
 * Progress from the newest restic `restore --json` status line of a container log. A summary
 * line after it means the restore finished: its figures count, at 100 percent.
 */
export function parseRestoreProgress(log: string): RestoreProgress | undefined {
  for (const line of jsonLinesNewestFirst(log)) {
    if (line.message_type !== 'status' && line.message_type !== 'summary') continue;
    const counts = counters(line, [
      'total_files',
      'files_restored',
      'total_bytes',
      'bytes_restored',
    ]);
    if (!counts) continue;
    let percentComplete = 100;
    if (line.message_type === 'status') {
      const fraction = line.percent_done ?? 0;
      if (typeof fraction !== 'number' || !Number.isFinite(fraction)) continue;
      percentComplete = Math.min(100, Math.max(0, Math.round(fraction * 10_000) / 100));
    }
    return {
      filesTotal: counts.total_files,
      filesRestored: counts.files_restored,
      bytesTotal: counts.total_bytes,
      bytesRestored: counts.bytes_restored,
      percentComplete,
    };
  }
  return undefined;
}

/** The restore Job's result line: `{"snapshot_id","snapshot_time","files_restored","bytes_restored"}`. */
export function parseRestoreSummary(
  terminationMessage: string | undefined,
): RestoreSummary | undefined {
  for (const line of jsonLinesNewestFirst(terminationMessage)) {
    if (!isSnapshotId(line.snapshot_id)) continue;
    const counts = counters(line, ['files_restored', 'bytes_restored']);
    if (!counts) continue;
    const summary: RestoreSummary = {
      snapshotId: line.snapshot_id,
      filesRestored: counts.files_restored,
      bytesRestored: counts.bytes_restored,
    };
    const time = typeof line.snapshot_time === 'string' ? Date.parse(line.snapshot_time) : NaN;
    if (Number.isFinite(time)) summary.snapshotDate = new Date(time).toISOString();
    return summary;
  }
  return undefined;
}

type JsonLine = Record<string, unknown>;

/** The JSON object lines of a text, last first; anything else in it is skipped. */
function* jsonLinesNewestFirst(text: string | undefined): Generator<JsonLine> {
  if (typeof text !== 'string') return;
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i].trim();
    if (!line.startsWith('{') || !line.endsWith('}')) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      yield parsed as JsonLine;
    }
  }
}

function isSnapshotId(value: unknown): value is string {
  return typeof value === 'string' && SNAPSHOT_ID.test(value);
}

/** restic leaves zero counters out; a present counter must be a non-negative number. */
function counters<K extends string>(line: JsonLine, keys: K[]): Record<K, number> | undefined {
  const result = {} as Record<K, number>;
  for (const key of keys) {
    const value = line[key] ?? 0;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return undefined;
    result[key] = value;
  }
  return result;
}
