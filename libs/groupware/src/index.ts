export * from './crds/index.js';
export * from './instance/index.js';
export * from './occ/occ-job.js';
export * from './operator/groupware-operator.module.js';
