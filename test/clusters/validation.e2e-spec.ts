import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GardenerKinds, SHOOT_DEFAULTS_ANNOTATION } from '@platform/clusters';
import { bearer } from '../support/identity.js';
import { cloudProfile } from './gardener-fixtures.js';
import { type ClusterWorld, clusterBody, createClusterWorld } from './support.js';

type Field = { field: string; messages: string[] };

describe('cluster creates: the body and the cloud profile are checked before anything is written', () => {
  let w: ClusterWorld;
  /** A granted project without a Gardener project yet: a refused create must not make one. */
  let freshProjectId: string;
  const post = (body: object, projectId = freshProjectId) =>
    w.t.request().post(`/k8s/clusters?project_id=${projectId}`).set(bearer(w.owner.jwt)).send(body);
  const worker = (extra: Record<string, unknown> = {}) => ({
    name: 'default',
    machine_type: 'm1.large',
    minimum: 1,
    maximum: 3,
    ...extra,
  });
  const fieldsOf = (body: { code: string; details: { fields: Field[] } }) => {
    expect(body.code).toBe('validation_failed');
    return body.details.fields.map((f) => f.field);
  };

  beforeAll(async () => {
    w = await createClusterWorld();
    freshProjectId = await w.newProject('fresh');
  });
  afterAll(async () => {
    await w?.close();
  });

  it.each([
    ['an uppercase name', { name: 'Prod' }, ['name']],
    ['a name over 12 characters', { name: 'abcdefghijklm' }, ['name']],
    ['a name with "--"', { name: 'a--b' }, ['name']],
    ['a name ending in "-"', { name: 'prod-' }, ['name']],
    [
      'a version that is not major.minor.patch',
      { kubernetes_version: '1.31' },
      ['kubernetes_version'],
    ],
    ['a profile that cannot be a name', { cloud_profile: 'Open Stack' }, ['cloud_profile']],
    ['no region', { region: '' }, ['region']],
    ['no workers', { workers: [] }, ['workers']],
    [
      'eleven worker groups',
      { workers: Array.from({ length: 11 }, (_, i) => worker({ name: `w${i}` })) },
      ['workers'],
    ],
    [
      'a worker without a machine type',
      { workers: [worker({ machine_type: undefined })] },
      ['workers.0.machine_type'],
    ],
    [
      'a worker name over 15 characters',
      { workers: [worker({ name: 'abcdefghijklmnop' })] },
      ['workers.0.name'],
    ],
    ['a negative minimum', { workers: [worker({ minimum: -1 })] }, ['workers.0.minimum']],
    ['a maximum over 100', { workers: [worker({ maximum: 101 })] }, ['workers.0.maximum']],
    ['a fractional maximum', { workers: [worker({ maximum: 2.5 })] }, ['workers.0.maximum']],
    ['a worker that is not an object', { workers: ['default'] }, ['workers.0']],
    [
      'minimum above maximum',
      { workers: [worker(), worker({ name: 'b', minimum: 5, maximum: 4 })] },
      ['workers.1.maximum'],
    ],
    ['two groups of one name', { workers: [worker(), worker()] }, ['workers.1.name']],
  ])('refuses %s: 422 naming the field', async (_, change, fields) => {
    const res = await post(clusterBody(change)).expect(422);
    expect(fieldsOf(res.body)).toEqual(fields);
  });

  it.each([
    [
      'an unknown cloud profile',
      { cloud_profile: 'nowhere' },
      'cloud_profile',
      'cloud_profile nowhere does not exist (GET /k8s/cloudprofiles)',
    ],
    [
      'a version the profile does not offer',
      { kubernetes_version: '1.28.0' },
      'kubernetes_version',
      'kubernetes_version must be one of the versions cloud profile openstack-eu offers: 1.31.2, 1.30.6',
    ],
    [
      'an expired version',
      { kubernetes_version: '1.29.9' },
      'kubernetes_version',
      'kubernetes_version 1.29.9 expired on 2020-01-01T00:00:00Z; offered: 1.31.2, 1.30.6',
    ],
    [
      'a region the profile does not have',
      { region: 'us-east-1' },
      'region',
      'region must be one of the regions of cloud profile openstack-eu: eu-de-1, eu-nl-1',
    ],
    [
      'an unknown machine type',
      { workers: [worker(), worker({ name: 'big', machine_type: 'x9.huge' })] },
      'workers.1.machine_type',
      'machine_type must be one of the machine types of cloud profile openstack-eu: m1.large, m1.xlarge, g1.gpu',
    ],
    [
      'a machine type the profile lists as not usable',
      { workers: [worker({ machine_type: 'm0.legacy' })] },
      'workers.0.machine_type',
      'machine_type must be one of the machine types of cloud profile openstack-eu: m1.large, m1.xlarge, g1.gpu',
    ],
    [
      'a machine type no zone of the region offers',
      { region: 'eu-nl-1', workers: [worker({ machine_type: 'g1.gpu' })] },
      'workers.0.machine_type',
      'machine type g1.gpu is unavailable in region eu-nl-1',
    ],
  ])(
    'refuses %s against the cloud profile: 422 naming the field',
    async (_, change, field, message) => {
      const res = await post(clusterBody(change)).expect(422);
      expect(res.body.details.fields).toEqual([{ field, messages: [message] }]);
    },
  );

  it('names every failing field of the profile check at once', async () => {
    const res = await post(
      clusterBody({
        kubernetes_version: '1.1.1',
        region: 'mars-1',
        workers: [worker({ machine_type: 'x' }), worker({ name: 'b', machine_type: 'y' })],
      }),
    ).expect(422);
    expect(fieldsOf(res.body)).toEqual([
      'kubernetes_version',
      'region',
      'workers.0.machine_type',
      'workers.1.machine_type',
    ]);
  });

  it('wrote nothing for any refused create: no Gardener project, no Shoot', () => {
    expect(w.garden.writes('Project')).toEqual([]);
    expect(w.garden.writes('Shoot')).toEqual([]);
  });

  it('places a worker in the first zone of the region that offers its machine type', async () => {
    await post(clusterBody({ name: 'gpu', workers: [worker({ machine_type: 'g1.gpu' })] })).expect(
      202,
    );
    const shoot = w.garden.shoot(w.namespaceOf(freshProjectId), 'gpu')!;
    expect(shoot.spec!.provider!.workers![0].zones).toEqual(['eu-de-1b']);
  });

  it("lays the customer's choice over the Shoot defaults the profile's annotation holds", async () => {
    const defaults = {
      credentialsBindingName: 'shared-openstack',
      networking: { type: 'cilium', nodes: '10.250.0.0/16' },
      kubernetes: { version: '0.0.0', kubeAPIServer: { enableAnonymousAuthentication: false } },
      provider: {
        type: 'ignored',
        infrastructureConfig: {
          apiVersion: 'openstack.provider.extensions.gardener.cloud/v1alpha1',
          kind: 'InfrastructureConfig',
          floatingPoolName: 'public',
        },
        workers: [
          {
            name: 'ignored',
            machine: { type: 'ignored', image: { name: 'gardenlinux' } },
            minimum: 9,
            maximum: 9,
            volume: { size: '50Gi' },
          },
        ],
      },
      region: 'ignored',
    };
    const profile = cloudProfile('openstack-tuned');
    w.garden.put(GardenerKinds.CloudProfile, {
      ...profile,
      metadata: {
        ...profile.metadata,
        annotations: { [SHOOT_DEFAULTS_ANNOTATION]: JSON.stringify(defaults) },
      },
    });
    await post(clusterBody({ name: 'tuned', cloud_profile: 'openstack-tuned' })).expect(202);
    expect(w.garden.shoot(w.namespaceOf(freshProjectId), 'tuned')!.spec).toEqual({
      credentialsBindingName: 'shared-openstack',
      networking: { type: 'cilium', nodes: '10.250.0.0/16' },
      cloudProfileName: 'openstack-tuned',
      cloudProfile: { kind: 'CloudProfile', name: 'openstack-tuned' },
      region: 'eu-de-1',
      kubernetes: { version: '1.31.2', kubeAPIServer: { enableAnonymousAuthentication: false } },
      provider: {
        type: 'openstack',
        infrastructureConfig: defaults.provider.infrastructureConfig,
        workers: [
          {
            name: 'default',
            machine: { type: 'm1.large', image: { name: 'gardenlinux' } },
            minimum: 1,
            maximum: 3,
            volume: { size: '50Gi' },
            zones: ['eu-de-1a'],
          },
        ],
      },
    });
  });

  it('refuses to create from a profile whose defaults annotation is not JSON (502, not retryable)', async () => {
    const profile = cloudProfile('openstack-broken');
    w.garden.put(GardenerKinds.CloudProfile, {
      ...profile,
      metadata: { ...profile.metadata, annotations: { [SHOOT_DEFAULTS_ANNOTATION]: '{oops' } },
    });
    const before = w.garden.writes('Shoot').length;
    const res = await post(
      clusterBody({ name: 'broken', cloud_profile: 'openstack-broken' }),
    ).expect(502);
    expect(res.body).toMatchObject({
      code: 'provider_unavailable',
      retryable: false,
      details: { provider: 'garden', cloud_profile: 'openstack-broken' },
    });
    expect(w.garden.writes('Shoot')).toHaveLength(before);
  });

  it('passes what Gardener itself refuses as 422 upstream_rejected with its message', async () => {
    // A profile without a type makes a Shoot without provider.type, which the API refuses.
    w.garden.put(GardenerKinds.CloudProfile, cloudProfile('typeless', { type: undefined }));
    const res = await post(clusterBody({ name: 'typeless', cloud_profile: 'typeless' })).expect(
      422,
    );
    expect(res.body).toMatchObject({
      code: 'upstream_rejected',
      details: { provider: 'garden', upstream_status: 422 },
    });
    expect(res.body.details.message).toContain('spec.provider.type');
  });
});
