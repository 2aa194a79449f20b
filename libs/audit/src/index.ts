// The identity library imports this one and this one (audit-actor) imports identity: the
// modules without that import come first, so whichever library loads first, AuditLog and
// AuditModule exist by the time identity's classes are defined.
export * from './audit-log.js';
export * from './audit-log.repository.js';
export * from './audit.module.js';
export * from './audit-actor.js';
export * from './tables.js';
export * from './migrations/index.js';
