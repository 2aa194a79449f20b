export * from './crds/index.js';
export * from './instance/index.js';
export * from './occ/occ-job.js';
export * from './operator/groupware-operator.module.js';
export * from './talk/index.js';
export { GroupwarePoolReconciler } from './pools/groupware-pool.reconciler.js';
export { POOL_LABEL } from './pools/pool-census.js';
export {
  DELETION_BLOCKED,
  PROFILE_IN_USE_FINALIZER,
} from './profiles/groupware-profile.reconciler.js';
export { GROUPWARE_FINALIZER, GroupwareReconciler } from './tenant/groupware.reconciler.js';
