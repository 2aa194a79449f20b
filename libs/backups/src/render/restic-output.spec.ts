import { describe, expect, it } from '@jest/globals';
import {
  formatBinaryQuantity,
  parseBackupSummary,
  parseRestoreProgress,
  parseRestoreSummary,
} from './restic-output.js';

// Lines as restic 0.18 prints them with --json.
const BACKUP_SUMMARY =
  '{"message_type":"summary","files_new":1204,"files_changed":3,"files_unmodified":18211,' +
  '"dirs_new":12,"dirs_changed":5,"dirs_unmodified":1402,"data_blobs":1180,"tree_blobs":17,' +
  '"data_added":268435456,"data_added_packed":120586240,"total_files_processed":19418,' +
  '"total_bytes_processed":1610612736,"total_duration":42.718312345,' +
  '"backup_start":"2025-06-01T03:00:04.123456789Z","backup_end":"2025-06-01T03:00:46.841769134Z",' +
  '"snapshot_id":"4f9a1d0c5b3e2a7f8d6c4b2a0e9f8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e"}';
const BACKUP_STATUS =
  '{"message_type":"status","seconds_elapsed":5,"seconds_remaining":37,"percent_done":0.12,' +
  '"total_files":19418,"files_done":2330,"total_bytes":1610612736,"bytes_done":193273528,' +
  '"current_files":["/data/app/uploads/a.jpg"]}';
const RESTORE_STATUS_1 =
  '{"message_type":"status","seconds_elapsed":5,"percent_done":0.2513,"total_files":1200,' +
  '"files_restored":301,"total_bytes":2147483648,"bytes_restored":539687321}';
const RESTORE_STATUS_2 =
  '{"message_type":"status","seconds_elapsed":10,"percent_done":0.87654,"total_files":1200,' +
  '"files_restored":1050,"files_skipped":3,"total_bytes":2147483648,"bytes_restored":1882376110,' +
  '"bytes_skipped":4096}';
const RESTORE_SUMMARY =
  '{"message_type":"summary","seconds_elapsed":12,"total_files":1200,"files_restored":1197,' +
  '"files_skipped":3,"total_bytes":2147483648,"bytes_restored":2147479552,"bytes_skipped":4096}';

describe('formatBinaryQuantity', () => {
  it.each([
    [0, '0'],
    [512, '512'],
    [1023, '1023'],
    [1024, '1Ki'],
    [1536, '1.5Ki'],
    [1_048_576, '1Mi'],
    [1_610_612_736, '1.5Gi'],
    [1_342_177_280, '1.3Gi'], // 1.25Gi rounds half up
    [1_288_490_189, '1.2Gi'],
    [1_073_741_823, '1Gi'], // 1023.99...Mi rounds into the next unit
    [5 * 1024 ** 4, '5Ti'],
    [3 * 1024 ** 5 + 1024 ** 5 / 2, '3.5Pi'],
    [2 * 1024 ** 6, '2Ei'],
    [12.7, '12'],
    [-5, '0'],
  ])('%p bytes is %p', (bytes, quantity) => {
    expect(formatBinaryQuantity(bytes)).toBe(quantity);
  });
});

describe('parseBackupSummary', () => {
  const summary = {
    snapshotId: '4f9a1d0c5b3e2a7f8d6c4b2a0e9f8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e',
    volumeSize: '1.5Gi',
    totalBytesProcessed: 1_610_612_736,
    filesNew: 1204,
    filesChanged: 3,
    filesUnmodified: 18211,
    dataAdded: 268_435_456,
    durationSeconds: 42.718312345,
  };

  it('reads restic backup summary line', () => {
    expect(parseBackupSummary(`${BACKUP_SUMMARY}\n`)).toEqual(summary);
  });

  it('takes the last summary among status lines and other output', () => {
    const log = [BACKUP_STATUS, 'using parent snapshot 1a2b3c4d', BACKUP_SUMMARY, ''].join('\n');
    expect(parseBackupSummary(log)).toEqual(summary);
  });

  it('counts counters restic left out as zero', () => {
    const line = '{"message_type":"summary","total_duration":0.5,"snapshot_id":"0123456789abcdef"}';
    expect(parseBackupSummary(line)).toEqual({
      snapshotId: '0123456789abcdef',
      volumeSize: '0',
      totalBytesProcessed: 0,
      filesNew: 0,
      filesChanged: 0,
      filesUnmodified: 0,
      dataAdded: 0,
      durationSeconds: 0.5,
    });
  });

  it.each([
    ['nothing', undefined],
    ['an empty message', ''],
    ['restic error text', 'Fatal: unable to open config file: Stat: 403 Forbidden'],
    ['a status line only', BACKUP_STATUS],
    ['truncated JSON', BACKUP_SUMMARY.slice(0, 80)],
    ['a summary without a snapshot (dry run)', '{"message_type":"summary","files_new":1}'],
    ['a snapshot id that is not hex', '{"message_type":"summary","snapshot_id":"../../etc"}'],
    [
      'a negative counter',
      '{"message_type":"summary","files_new":-1,"snapshot_id":"0123456789abcdef"}',
    ],
    [
      'a counter that is not a number',
      '{"message_type":"summary","files_new":"7","snapshot_id":"0123456789abcdef"}',
    ],
    ['a JSON array', '[1,2,3]'],
    ['JSON null', 'null'],
  ])('gives undefined for %s', (_name, message) => {
    expect(parseBackupSummary(message)).toBeUndefined();
  });
});

describe('parseRestoreProgress', () => {
  it('reads the newest status line, percent_done as a percentage with two decimals', () => {
    const log = [
      'restoring snapshot 4f9a1d0c of 2025-06-01T03:00:04Z into /restore',
      RESTORE_STATUS_1,
      '{"message_type":"error","error":{"message":"permission denied"},"during":"restore","item":"/x"}',
      RESTORE_STATUS_2,
      '',
    ].join('\n');
    expect(parseRestoreProgress(log)).toEqual({
      filesTotal: 1200,
      filesRestored: 1050,
      bytesTotal: 2_147_483_648,
      bytesRestored: 1_882_376_110,
      percentComplete: 87.65,
    });
  });

  it('reports 100 percent once restic printed its summary', () => {
    expect(
      parseRestoreProgress([RESTORE_STATUS_1, RESTORE_STATUS_2, RESTORE_SUMMARY].join('\n')),
    ).toEqual({
      filesTotal: 1200,
      filesRestored: 1197,
      bytesTotal: 2_147_483_648,
      bytesRestored: 2_147_479_552,
      percentComplete: 100,
    });
  });

  it('keeps the percentage within 0..100', () => {
    const over =
      '{"message_type":"status","percent_done":1.0000001,"total_files":1,"files_restored":1}';
    expect(parseRestoreProgress(over)?.percentComplete).toBe(100);
    const start = '{"message_type":"status","seconds_elapsed":0}';
    expect(parseRestoreProgress(start)).toEqual({
      filesTotal: 0,
      filesRestored: 0,
      bytesTotal: 0,
      bytesRestored: 0,
      percentComplete: 0,
    });
  });

  it.each([
    ['an empty log', ''],
    ['text only', 'Fatal: repository does not exist\n'],
    ['a backup summary is not progress', '{"message_type":"verbose_status","action":"restored"}'],
    ['a status with a bad percentage', '{"message_type":"status","percent_done":"half"}'],
  ])('gives undefined for %s', (_name, log) => {
    expect(parseRestoreProgress(log)).toBeUndefined();
  });
});

describe('parseRestoreSummary', () => {
  it('reads the restore result line, the snapshot time in UTC', () => {
    const line =
      '{"snapshot_id":"4f9a1d0c5b3e2a7f8d6c4b2a0e9f8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e",' +
      '"snapshot_time":"2025-06-01T05:00:04.123456789+02:00","files_restored":1197,"bytes_restored":2147479552}';
    expect(parseRestoreSummary(`${line}\n`)).toEqual({
      snapshotId: '4f9a1d0c5b3e2a7f8d6c4b2a0e9f8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e',
      snapshotDate: '2025-06-01T03:00:04.123Z',
      filesRestored: 1197,
      bytesRestored: 2_147_479_552,
    });
  });

  it('leaves the date out when the time cannot be read', () => {
    const line =
      '{"snapshot_id":"0123456789abcdef","snapshot_time":"yesterday","files_restored":0}';
    expect(parseRestoreSummary(line)).toEqual({
      snapshotId: '0123456789abcdef',
      filesRestored: 0,
      bytesRestored: 0,
    });
  });

  it.each([
    ['nothing', undefined],
    ['the log tail of a failed restore', 'Fatal: failed to find snapshot: no matching ID found'],
    ['a restic summary without a snapshot', RESTORE_SUMMARY],
    ['bad counts', '{"snapshot_id":"0123456789abcdef","files_restored":-3}'],
  ])('gives undefined for %s', (_name, message) => {
    expect(parseRestoreSummary(message)).toBeUndefined();
  });
});
