export * from './action-cable.js';
export * from './notification-push.js';
export * from './realtime.module.js';
export * from './notification-push.module.js';
