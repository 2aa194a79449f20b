import 'reflect-metadata';

export * from './fake-clock.js';
export * from './fake-twilio.js';
export * from './log-capture.js';
export * from './kube-api-server/index.js';
export * from './ports.js';
export * from './smtp-sink.js';
export * from './test-app.js';
export * from './test-database.js';
export * from './test-redis.js';
export * from './arrivals.js';
export * from './deployable-process.js';
export * from './private-servers.js';
export * from './tls-certificate.js';
export * from './eventually.js';
export * from './fake-openstack/index.js';
export * from './fake-rgw.js';
