export * from './client/catalog.js';
export * from './client/keystone.js';
export * from './client/openstack-client.js';
export * from './migrations/index.js';
export * from './openstack.module.js';
export * from './tables.js';
export * from './tenancy/keystone-projects.service.js';
