export * from './alerting-exception.js';
export * from './alerting-worker.module.js';
export * from './alerting.module.js';
export * from './matchers/matchers.js';
export * from './severity.js';
export * from './timeline/alert-events.repository.js';
export * from './endpoints/index.js';
export * from './alerts/index.js';
