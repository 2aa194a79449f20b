export * from './alerts-prune.processor.js';
export * from './endpoint-fanout.service.js';
export * from './endpoints.repository.js';
export * from './notification-endpoints-worker.module.js';
export * from './notification-endpoints.module.js';
export * from './webhook-delivery.processor.js';
export * from './webhook-policy.js';
