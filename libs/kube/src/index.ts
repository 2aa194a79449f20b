export * from './bootstrap.js';
export * from './operator.module.js';
