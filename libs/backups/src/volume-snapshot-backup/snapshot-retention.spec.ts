import { describe, expect, it } from '@jest/globals';
import type { CinderSnapshot } from './cinder-client.js';
import { snapshotsToPrune } from './snapshot-retention.js';

const NOW = new Date('2024-05-10T12:00:00Z');
const SOURCE = 'team-a/data';

function snapshot(
  id: string,
  ageDays: number,
  fields: Partial<CinderSnapshot> = {},
): CinderSnapshot {
  const created = new Date(NOW.getTime() - ageDays * 86_400_000);
  return {
    id,
    name: `backup-team-a-nightly-${id}`,
    status: 'available',
    size: 10,
    volume_id: 'vol-1',
    // Cinder's form: microseconds, no zone designator, UTC.
    created_at: created.toISOString().replace(/Z$/, '000'),
    metadata: { 'managed-by': 'backup-operator', 'backups.k8s.neutral.com/source': SOURCE },
    ...fields,
  };
}

const prune = (
  snapshots: CinderSnapshot[],
  keepLast: number,
  keepForDays: number,
  keep: string[] = [],
) =>
  snapshotsToPrune({
    snapshots,
    namePrefix: 'backup',
    source: SOURCE,
    keepLast,
    keepForDays,
    now: NOW,
    keep: new Set(keep),
  })
    .map((s) => s.id)
    .sort();

describe('snapshotsToPrune', () => {
  it('deletes only what is both beyond the newest keepLast and older than keepForDays', () => {
    const all = [
      snapshot('d0', 0),
      snapshot('d2', 2),
      snapshot('d8', 8),
      snapshot('d9', 9),
      snapshot('d30', 30),
    ];
    expect(prune(all, 3, 7)).toEqual(['d30', 'd9']);
    expect(prune(all, 1, 7)).toEqual(['d30', 'd8', 'd9']);
    expect(prune(all, 5, 0)).toEqual([]);
    // One made this instant is not older than 0 days.
    expect(prune(all, 0, 0)).toEqual(['d2', 'd30', 'd8', 'd9']);
  });

  it('sorts by creation time, not by listing order', () => {
    expect(prune([snapshot('d30', 30), snapshot('d9', 9), snapshot('d1', 1)], 1, 7)).toEqual([
      'd30',
      'd9',
    ]);
  });

  it('never touches snapshots of another claim, another prefix, without its metadata, or kept explicitly', () => {
    const all = [
      snapshot('other-claim', 30, {
        metadata: {
          'managed-by': 'backup-operator',
          'backups.k8s.neutral.com/source': 'team-b/data',
        },
      }),
      snapshot('other-prefix', 30, { name: 'weekly-team-a-nightly-x' }),
      snapshot('prefix-only', 30, { name: 'backuptool-x' }),
      snapshot('by-hand', 30, { metadata: {} }),
      snapshot('current', 30),
    ];
    expect(prune(all, 0, 0, ['current'])).toEqual([]);
  });

  it('leaves snapshots Cinder is still creating or already deleting', () => {
    const all = [
      snapshot('creating', 30, { status: 'creating' }),
      snapshot('deleting', 30, { status: 'deleting' }),
      snapshot('error', 30, { status: 'error' }),
    ];
    expect(prune(all, 0, 0)).toEqual(['error']);
  });
});
