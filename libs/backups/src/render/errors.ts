export type RenderProblemReason =
  /** targetPVC.createNew without targetPVC.size: a claim cannot be created without a size. */
  | 'TargetSizeRequired'
  /** Neither sourceBackup nor sourceRepository names where to restore from. */
  | 'SourceMissing'
  /** sourceBackup is set but the referenced VolumeBackup's repository was not passed in. */
  | 'SourceBackupUnresolved'
  /** restic restores either with include patterns or with exclude patterns, never both. */
  | 'IncludeExcludeConflict'
  /** snapshotDate is not an RFC 3339 date-time. */
  | 'InvalidSnapshotDate'
  /** Owner references were asked for but the owner has no uid (it was never stored). */
  | 'OwnerWithoutUid';

/**
 * A resource whose spec cannot be rendered into working objects. `reason` is meant for the
 * resource's Ready condition, `message` for its status message.
 */
export class RenderError extends Error {
  constructor(
    readonly reason: RenderProblemReason,
    message: string,
  ) {
    super(message);
    this.name = 'RenderError';
  }
}
