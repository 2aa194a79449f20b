export * from './alerts-api.openapi.js';
export * from './rosters/on-call-resolver.js';
export * from './rosters/on-call.module.js';
export * from './rosters/rosters.module.js';
export * from './targets/recipient-targets.js';
export * from './tables.js';
export * from './migrations/index.js';
