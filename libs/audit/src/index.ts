export * from './audit-actor.js';
export * from './audit-log.js';
export * from './audit-log.repository.js';
export * from './audit.module.js';
