import { badRequest, FakeService, json, type ProjectResources } from './fake-service.js';

/** The status a new snapshot or volume takes when it is next read (`creating` holds it there). */
export type CinderOutcome = 'available' | 'creating' | 'error';

/** How the fake Cinder's snapshots and volumes progress, changeable while it runs. */
export interface CinderOptions {
  snapshots: CinderOutcome;
  volumes: CinderOutcome;
  /** The fake's time for `created_at`: set it to a test's clock to age snapshots. */
  now: () => number;
}

type Stored = Record<string, unknown> & { id: string };

const notFound = (what: string, id: string) =>
  json(404, { itemNotFound: { code: 404, message: `${what} ${id} could not be found.` } });

/** Cinder's timestamps: UTC with microseconds and no zone designator. */
const cinderTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000');

/**
 * Cinder (block storage v3): the volumes and snapshots of each project, below
 * `/volume/v3/{project_id}` as the real endpoint is (the fake puts the token's project there).
 * Creates and deletes answer 202 as Cinder does; a new snapshot or volume is `creating` and
 * moves to the outcome `options` names on its next read, so a test holds it (`creating`) or
 * fails it (`error`) without timers.
 */
export function cinderService(resources: ProjectResources, options: CinderOptions): FakeService {
  const volumes = (projectId: string) => resources.collection(projectId, 'volumes');
  const snapshots = (projectId: string) => resources.collection(projectId, 'snapshots');
  const settle = (object: Record<string, unknown> | undefined, outcome: CinderOutcome) => {
    if (object?.status === 'creating' && outcome !== 'creating') {
      object.status = outcome;
      object.updated_at = cinderTime(options.now());
      const progress = 'os-extended-snapshot-attributes:progress';
      if (progress in object) object[progress] = outcome === 'available' ? '100%' : '0%';
    }
    return object;
  };
  return new FakeService('block-storage', '/volume/v3/{project_id}')
    .on('GET', /^\/volumes\/detail$/, (r) => {
      const filters = ['name', 'status'].filter((key) => r.query.has(key));
      const found = [...volumes(r.projectId).values()]
        .map((v) => settle(v, options.volumes)!)
        .filter((v) => filters.every((key) => v[key] === r.query.get(key)));
      return json(200, { volumes: found });
    })
    .on('GET', /^\/volumes\/([^/]+)$/, (r, [id]) => {
      const volume = settle(volumes(r.projectId).get(id), options.volumes);
      return volume ? json(200, { volume }) : notFound('Volume', id);
    })
    .on('POST', /^\/volumes$/, (r) => createVolume(resources, r.projectId, r.body, options))
    .on('DELETE', /^\/volumes\/([^/]+)$/, (r, [id]) => {
      const volume = volumes(r.projectId).get(id);
      if (!volume) return notFound('Volume', id);
      if ([...snapshots(r.projectId).values()].some((s) => s.volume_id === id)) {
        return badRequest('Invalid volume: Volume still has 1 dependent snapshots.');
      }
      volumes(r.projectId).delete(id);
      return { status: 202 };
    })
    .on('GET', /^\/snapshots(?:\/detail)?$/, (r) => {
      const filters = ['volume_id', 'name', 'status'].filter((key) => r.query.has(key));
      const found = [...snapshots(r.projectId).values()]
        .map((s) => settle(s, options.snapshots)!)
        .filter((s) => filters.every((key) => s[key] === r.query.get(key)));
      return json(200, { snapshots: found });
    })
    .on('GET', /^\/snapshots\/([^/]+)$/, (r, [id]) => {
      const snapshot = settle(snapshots(r.projectId).get(id), options.snapshots);
      return snapshot ? json(200, { snapshot }) : notFound('Snapshot', id);
    })
    .on('POST', /^\/snapshots$/, (r) => createSnapshot(resources, r.projectId, r.body, options))
    .on('DELETE', /^\/snapshots\/([^/]+)$/, (r, [id]) => {
      if (!snapshots(r.projectId).delete(id)) return notFound('Snapshot', id);
      return { status: 202 };
    });
}

function createSnapshot(
  resources: ProjectResources,
  projectId: string,
  body: unknown,
  options: CinderOptions,
) {
  const request = (body as { snapshot?: Record<string, unknown> } | undefined)?.snapshot;
  if (!request || typeof request.volume_id !== 'string') {
    return badRequest(
      "Invalid input for field/attribute snapshot. 'volume_id' is a required property",
    );
  }
  const volume = resources.collection(projectId, 'volumes').get(request.volume_id);
  if (!volume) return notFound('Volume', request.volume_id);
  const force = request.force === true || request.force === 'true' || request.force === 'True';
  if (volume.status === 'in-use' && !force) {
    return badRequest(
      `Invalid volume: Volume ${request.volume_id} status must be available, but current status is: in-use.`,
    );
  }
  if (volume.status !== 'available' && volume.status !== 'in-use') {
    return badRequest(
      `Invalid volume: Volume ${request.volume_id} status must be available or in-use, but current status is: ${volume.status as string}.`,
    );
  }
  const now = cinderTime(options.now());
  const snapshot = resources.add(projectId, 'snapshots', {
    name: typeof request.name === 'string' ? request.name : null,
    description: typeof request.description === 'string' ? request.description : null,
    status: 'creating',
    size: volume.size,
    volume_id: volume.id,
    metadata: (request.metadata as Record<string, string> | undefined) ?? {},
    created_at: now,
    updated_at: null,
    'os-extended-snapshot-attributes:progress': '0%',
    'os-extended-snapshot-attributes:project_id': projectId,
  });
  return json(202, { snapshot });
}

function createVolume(
  resources: ProjectResources,
  projectId: string,
  body: unknown,
  options: CinderOptions,
) {
  const request = (body as { volume?: Record<string, unknown> } | undefined)?.volume;
  if (!request)
    return badRequest("Invalid input for field/attribute volume. 'volume' is a required property");
  let size = request.size as number | undefined;
  let snapshotId: string | null = null;
  if (typeof request.snapshot_id === 'string') {
    const snapshot = resources.collection(projectId, 'snapshots').get(request.snapshot_id);
    if (!snapshot) return notFound('Snapshot', request.snapshot_id);
    if (snapshot.status !== 'available') {
      return badRequest(
        `Invalid snapshot: Originating snapshot status must be one of 'available' values`,
      );
    }
    if (size !== undefined && size < (snapshot.size as number)) {
      return badRequest(
        'Invalid input received: Volume size cannot be lesser than the snapshot size',
      );
    }
    size ??= snapshot.size as number;
    snapshotId = snapshot.id as string;
  }
  if (typeof size !== 'number' || size < 1) {
    return badRequest(
      "Invalid input for field/attribute size. Value: None. None is not of type 'integer'",
    );
  }
  const volume = seedVolume(resources, projectId, {
    name: typeof request.name === 'string' ? request.name : null,
    description: typeof request.description === 'string' ? request.description : null,
    status: 'creating',
    size,
    snapshot_id: snapshotId,
    metadata: (request.metadata as Record<string, string> | undefined) ?? {},
    ...(typeof request.volume_type === 'string' ? { volume_type: request.volume_type } : {}),
    created_at: cinderTime(options.now()),
  });
  return json(202, { volume });
}

/** A volume of a Keystone project, as Cinder shows it, with `fields` over the defaults. */
export function seedVolume(
  resources: ProjectResources,
  keystoneProjectId: string,
  fields: Record<string, unknown> = {},
): Stored {
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
