export * from './client-address.js';
export * from './rate-limit-rules.js';
export * from './rate-limiter.js';
export * from './rate-limits.module.js';
