import { describe, expect, it } from '@jest/globals';
import { applySchemaDefaults } from '@platform/kube';
import { groupwareCrds } from './manifests.js';
import type {
  GroupwareInstanceSpec,
  GroupwareInstanceSpecInput,
  GroupwarePoolSpec,
  GroupwarePoolSpecInput,
  TalkServerSpec,
  TalkServerSpecInput,
} from './types.js';

/** The spec the API server stores for `spec` as written, typed as the operator reads it. */
function stored<Stored>(kind: string, spec: object): Stored {
  const crd = groupwareCrds().find((candidate) => candidate.spec.names.kind === kind)!;
  return applySchemaDefaults(crd.spec.versions[0].schema.openAPIV3Schema, { spec }).spec as Stored;
}

describe('what the API server stores for a minimal resource', () => {
  it('a GroupwareInstance gets version 29, the database and the data backup defaults', () => {
    const spec: GroupwareInstanceSpecInput = {};
    expect(stored<GroupwareInstanceSpec>('GroupwareInstance', spec)).toEqual({
      version: '29',
      database: {
        type: 'postgresql',
        managed: false,
        port: 5432,
        name: 'nextcloud',
        user: 'nextcloud',
      },
      backups: { data: { enabled: false, schedule: '0 3 * * *', deleteOnCleanup: false } },
    });
  });

  it('a GroupwareInstance keeps what it sets and leaves profile-overridable fields unset', () => {
    const spec: GroupwareInstanceSpecInput = {
      version: '30.0.4',
      database: { managed: true, postgres: { replicas: 2 } },
      backups: { data: { enabled: true, bucket: 'b', credentialsSecret: 's3' } },
      apps: {
        calendar: { enabled: false },
        spreed: {
          enabled: true,
          turnServers: [{ server: 'turn.example.com:3478', secretRef: { name: 'turn' } }],
          recording: { url: 'https://rec.example.com', secretRef: { name: 'rec' } },
        },
      },
    };
    const result = stored<GroupwareInstanceSpec>('GroupwareInstance', spec);
    expect(result).toMatchObject({
      version: '30.0.4',
      database: { type: 'postgresql', managed: true, port: 5432, postgres: { replicas: 2 } },
      backups: { data: { enabled: true, bucket: 'b', schedule: '0 3 * * *' } },
      apps: {
        calendar: { enabled: false },
        spreed: {
          turnServers: [
            {
              server: 'turn.example.com:3478',
              schemes: 'turn',
              protocols: 'udp,tcp',
              secretRef: { name: 'turn', key: 'secret' },
            },
          ],
          recording: { verifyTls: true, secretRef: { name: 'rec', key: 'secret' } },
        },
      },
    });
    // The operator layers the profile under these; a schema default would hide the profile's.
    for (const field of ['replicas', 'resources', 'persistence'] as const) {
      expect(result[field]).toBeUndefined();
    }
  });

  it('a GroupwarePool defaults its size and leaves its template as written', () => {
    const spec: GroupwarePoolSpecInput = { namespace: 'pool', template: { profile: 'testing' } };
    expect(stored<GroupwarePoolSpec>('GroupwarePool', spec)).toEqual({
      namespace: 'pool',
      size: 1,
      template: { profile: 'testing' },
    });
  });

  it.each(['SignalingServer', 'RecordingServer'])(
    'a %s verifies TLS and reads the secret key "secret" by default',
    (kind) => {
      const spec: TalkServerSpecInput = {
        url: 'https://talk.example.com',
        secretRef: { name: 'talk', namespace: 'groupware' },
      };
      expect(stored<TalkServerSpec>(kind, spec)).toEqual({
        url: 'https://talk.example.com',
        secretRef: { name: 'talk', namespace: 'groupware', key: 'secret' },
        verifyTls: true,
      });
    },
  );

  it('a Groupware and a GroupwareProfile keep their spec as written', () => {
    const groupware = { profile: 'production', poolSelector: { matchLabels: { tier: 'eu' } } };
    expect(stored('Groupware', groupware)).toEqual(groupware);
    const profile = { description: 'x', defaults: { replicaCount: 2 }, helm: { version: '5.5.2' } };
    expect(stored('GroupwareProfile', profile)).toEqual(profile);
  });
});
