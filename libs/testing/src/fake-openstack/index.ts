export * from './cinder.js';
export * from './designate.js';
export * from './fake-openstack.js';
export * from './fake-service.js';
export * from './keystone.js';
export * from './nova.js';
export * from './octavia.js';
export * from './neutron.js';
