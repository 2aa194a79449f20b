export * from './definitions.js';
export * from './manifests.js';
export type * from './types.js';
export {
  DEFAULT_GROUPWARE_VERSION,
  INSTANCE_PHASES,
  WELL_KNOWN_APPS,
} from './groupware-instance.js';
export { CLAIMED_BY_LABEL, GROUPWARE_PHASES } from './other-kinds.js';
