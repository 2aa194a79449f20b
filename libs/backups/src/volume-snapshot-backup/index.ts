export * from './cinder-client.js';
export * from './openstack-credentials.js';
export * from './snapshot-backup-metrics.js';
export * from './snapshot-backup-spec.js';
export * from './snapshot-backup-status.js';
export * from './snapshot-backup-webhooks.js';
export * from './source-volume.js';
export * from './volume-snapshot-backup.reconciler.js';
export { CINDER_POLL_MS, WAITING_POLL_MS } from './run-state.js';
