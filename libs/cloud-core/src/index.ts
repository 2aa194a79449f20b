export * from './api-upstream-data.js';
export * from './cloud-audit.js';
export * from './cloud-core.module.js';
export * from './cloud-errors.openapi.js';
export * from './cloud-route.decorator.js';
export * from './upstream-errors.js';
export * from './upstream-http.js';
export * from './upstream-metrics.js';
