export * from './job-dispatcher.js';
export * from './job-queue.service.js';
export * from './jobs.js';
export * from './queue-name.js';
export * from './queue.module.js';
export * from './redis.provider.js';
export * from './worker-runtime.module.js';
export * from './recovery-sweeper.js';
