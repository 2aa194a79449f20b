export { formatDuration } from './duration.js';
export { RESTORE_SPEC_ANNOTATION } from './restore-jobs.js';
export {
  RESTORE_CLEANUP_FINALIZER,
  RESTORE_PROGRESS_POLL_MS,
  VolumeRestoreReconciler,
} from './volume-restore.reconciler.js';
