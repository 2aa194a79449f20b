export * from './catalog.js';
export * from './errors.js';
export * from './keystone.js';
export * from './session.js';
export * from './transport.js';
