export * from './talk-backends.js';
export * from './talk-events.js';
export * from './talk-jobs.js';
export * from './talk-plan.js';
export * from './talk-secrets.js';
export * from './talk-server.reconciler.js';
export * from './talk-status.js';
