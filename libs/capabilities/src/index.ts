export * from './capabilities-exception.js';
export * from './capabilities.module.js';
export * from './catalog/capabilities.service.js';
export * from './catalog/kinds.js';
export * from './guard/capability.guard.js';
export * from './guard/requires-capability.decorator.js';
export * from './tables.js';
export * from './migrations/index.js';
