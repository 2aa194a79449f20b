import { describe, expect, it } from '@jest/globals';
import type { GroupwareInstanceSpec, GroupwareProfile } from '../crds/types.js';
import { specProblem } from './instance-validation.js';

function spec(fields: Partial<GroupwareInstanceSpec> = {}): GroupwareInstanceSpec {
  return {
    version: '29',
    database: {
      type: 'postgresql',
      managed: false,
      port: 5432,
      name: 'nextcloud',
      user: 'nextcloud',
    },
    backups: { data: { enabled: false, schedule: '0 3 * * *', deleteOnCleanup: false } },
    ...fields,
  } as GroupwareInstanceSpec;
}

const persistentProfile = {
  metadata: { name: 'production' },
  spec: { defaults: { persistence: { enabled: true } } },
} as GroupwareProfile;

describe('Validation of a GroupwareInstance spec', () => {
  it('accepts a plain spec', () => {
    expect(specProblem(spec(), undefined)).toBeUndefined();
  });

  it('names a profile that does not exist', () => {
    expect(specProblem(spec({ profile: 'gold' }), undefined)).toEqual({
      field: 'spec.profile',
      message: 'spec.profile: GroupwareProfile "gold" does not exist',
    });
  });

  it('refuses a version the table does not know', () => {
    expect(specProblem(spec({ version: '27' }), undefined)).toEqual({
      field: 'spec.version',
      message: 'spec.version: "27" is not a known version (known majors: 28, 29, 30, 31)',
    });
  });

  it('refuses a managed MySQL database', () => {
    const database = { ...spec().database, managed: true, type: 'mysql' as const };
    expect(specProblem(spec({ database }), undefined)?.field).toBe('spec.database.type');
  });

  it('needs persistence, from the instance or its profile, for apps and data backups', () => {
    const apps = { calendar: { enabled: true } };
    expect(specProblem(spec({ apps }), undefined)).toEqual({
      field: 'spec.apps',
      message: 'spec.apps: app management needs spec.persistence.enabled: true',
    });
    expect(specProblem(spec({ apps, profile: 'production' }), persistentProfile)).toBeUndefined();
    expect(
      specProblem(
        spec({ apps, persistence: { enabled: false }, profile: 'production' }),
        persistentProfile,
      )?.field,
    ).toBe('spec.apps');
    const backups = {
      data: {
        enabled: true,
        schedule: '0 3 * * *',
        deleteOnCleanup: false,
        bucket: 'b',
        credentialsSecret: 's',
      },
    };
    expect(specProblem(spec({ backups }), undefined)?.field).toBe('spec.backups.data');
    expect(
      specProblem(spec({ backups, persistence: { enabled: true } }), undefined),
    ).toBeUndefined();
  });
});
