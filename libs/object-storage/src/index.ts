export * from './client/rgw-admin-ops.js';
export * from './client/rgw-client.js';
export * from './client/sigv4.js';
export * from './migrations/index.js';
export * from './object-storage.module.js';
export * from './tables.js';
export * from './tenancy.js';
