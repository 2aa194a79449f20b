export * from './bootstrap.js';
export * from './operator.module.js';
export * from './runtime/index.js';
export * from './crd/index.js';
