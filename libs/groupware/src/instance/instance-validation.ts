import type { GroupwareInstanceSpec, GroupwareProfile } from '../crds/types.js';
import { appsWanted } from './instance-apps.js';
import { BUILTIN_VERSIONS, resolveVersion } from './version-resolution.js';

export interface SpecProblem {
  /** The field at fault, e.g. `spec.profile`. */
  field: string;
  message: string;
}

/**
 * What the CRD schema cannot refuse: references to other objects, combinations of fields, and
 * versions the operator's table does not know. `profile` is the named profile as read, or
 * undefined when it does not exist.
 */
export function specProblem(
  spec: GroupwareInstanceSpec,
  profile: GroupwareProfile | undefined,
): SpecProblem | undefined {
  if (spec.profile && !profile) {
    return {
      field: 'spec.profile',
      message: `spec.profile: GroupwareProfile "${spec.profile}" does not exist`,
    };
  }
  if (!resolveVersion(spec.version)) {
    return {
      field: 'spec.version',
      message: `spec.version: "${spec.version}" is not a known version (known majors: ${Object.keys(BUILTIN_VERSIONS).join(', ')})`,
    };
  }
  const database = spec.database;
  if (database.managed && database.type !== 'postgresql') {
    return {
      field: 'spec.database.type',
      message: `spec.database.type: a managed database is PostgreSQL, not ${database.type}`,
    };
  }
  if (!database.managed && database.postgres) {
    return {
      field: 'spec.database.postgres',
      message: 'spec.database.postgres: applies only with spec.database.managed: true',
    };
  }
  const persistent =
    spec.persistence?.enabled ?? profile?.spec?.defaults?.persistence?.enabled ?? false;
  // occ Jobs and backups reach the files through the chart's claim; without one they are in the pod only.
  if (!persistent && appsWanted(spec).length > 0) {
    return {
      field: 'spec.apps',
      message: 'spec.apps: app management needs spec.persistence.enabled: true',
    };
  }
  const data = spec.backups.data;
  if (data.enabled && !persistent) {
    return {
      field: 'spec.backups.data',
      message: 'spec.backups.data: data backups need spec.persistence.enabled: true',
    };
  }
  if (data.enabled && (!data.bucket || !data.credentialsSecret)) {
    return {
      field: 'spec.backups.data',
      message: 'spec.backups.data: an enabled data backup needs bucket and credentialsSecret',
    };
  }
  return undefined;
}
