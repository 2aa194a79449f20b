export * from './s3-backup-metrics.js';
export * from './s3-backup-reporting.js';
export * from './s3-backup.reconciler.js';
