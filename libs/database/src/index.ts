export * from './data-source.js';
export * from './database.module.js';
export * from './schema-parts.js';
export * from './prepared-query.js';
export * from './snake-naming.strategy.js';
