import { type CinderSnapshot, cinderTimeMs } from './cinder-client.js';
import { CinderMetadata } from './snapshot-backup-spec.js';
import { MANAGED_BY } from '../render/pod.js';

const DAY_MS = 86_400_000;

export interface RetentionInputs {
  /** Every snapshot of the backed-up Cinder volume. */
  snapshots: CinderSnapshot[];
  namePrefix: string;
  /** `<namespace>/<claim>` of the backed-up claim. */
  source: string;
  keepLast: number;
  keepForDays: number;
  now: Date;
  /** Never pruned, whatever their age (the snapshot of the run that just succeeded). */
  keep: ReadonlySet<string>;
}

/**
 * The snapshots retention removes: only the operator's own (its metadata for this claim and
 * the name prefix), settled (not being created or deleted), beyond the newest `keepLast` and
 * older than `keepForDays` days. A snapshot either rule keeps stays.
 */
export function snapshotsToPrune(inputs: RetentionInputs): CinderSnapshot[] {
  const ours = inputs.snapshots
    .filter(
      (snapshot) =>
        snapshot.metadata?.[CinderMetadata.managedBy] === MANAGED_BY &&
        snapshot.metadata?.[CinderMetadata.source] === inputs.source &&
        (snapshot.name ?? '').startsWith(`${inputs.namePrefix}-`),
    )
    .sort((a, b) => cinderTimeMs(b.created_at) - cinderTimeMs(a.created_at));
  const oldestKept = inputs.now.getTime() - inputs.keepForDays * DAY_MS;
  return ours.filter(
    (snapshot, index) =>
      index >= inputs.keepLast &&
      cinderTimeMs(snapshot.created_at) < oldestKept &&
      !inputs.keep.has(snapshot.id) &&
      (snapshot.status === 'available' || snapshot.status === 'error'),
  );
}
