import { FakeService, json, type ProjectResources } from './fake-service.js';

/**
 * Cinder (block storage v3): the volumes of each project, below `/volume/v3/{project_id}` as
 * the real endpoint is (the fake puts the token's project there). Volumes are only read
 * through the platform; tests put them in place with `seedVolume`.
 */
export function cinderService(resources: ProjectResources): FakeService {
  const volumes = (projectId: string) => resources.collection(projectId, 'volumes');
  return new FakeService('block-storage', '/volume/v3/{project_id}')
    .on('GET', /^\/volumes\/detail$/, (r) =>
      json(200, { volumes: [...volumes(r.projectId).values()] }),
    )
    .on('GET', /^\/volumes\/([^/]+)$/, (r, [id]) => {
      const volume = volumes(r.projectId).get(id);
      return volume
        ? json(200, { volume })
        : json(404, { itemNotFound: { message: `Volume ${id} could not be found.`, code: 404 } });
    });
}

/** A volume of a Keystone project, as Cinder shows it, with `fields` over the defaults. */
export function seedVolume(
  resources: ProjectResources,
  keystoneProjectId: string,
  fields: Record<string, unknown> = {},
): Record<string, unknown> & { id: string } {
  return resources.add(keystoneProjectId, 'volumes', {
    name: 'data',
    description: null,
    status: 'available',
    size: 10,
    volume_type: '__DEFAULT__',
    availability_zone: 'nova',
    bootable: 'false',
    encrypted: false,
    multiattach: false,
    attachments: [],
    metadata: {},
    snapshot_id: null,
    source_volid: null,
    replication_status: null,
    migration_status: null,
    consistencygroup_id: null,
    group_id: null,
    created_at: new Date().toISOString(),
    updated_at: null,
    links: [],
    ...fields,
  });
}
