export * from './fake-openstack.js';
export * from './fake-service.js';
export * from './keystone.js';
export * from './nova.js';
export * from './neutron.js';
