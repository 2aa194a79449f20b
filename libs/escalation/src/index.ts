export * from './escalation-exception.js';
export * from './escalation.module.js';
export * from './escalation-worker.module.js';
export * from './chains/chain-snapshot.js';
export * from './engine/escalation-jobs.js';
export * from './engine/escalation-engine.js';
