import { randomBytes, randomUUID } from 'node:crypto';
import {
  badRequest,
  FakeService,
  json,
  novaNotFound,
  type ProjectResources,
} from './fake-service.js';
import { createKeypair, keypairNotFound, listedKeypair } from './nova-keypairs.js';

export const FAKE_FLAVORS = [
  { id: 'm1.small', name: 'm1.small', vcpus: 1, ram: 2048, disk: 20 },
  { id: 'm1.medium', name: 'm1.medium', vcpus: 2, ram: 4096, disk: 40 },
];

interface NovaServerBody {
  name?: unknown;
  flavorRef?: unknown;
  imageRef?: unknown;
  key_name?: string;
  security_groups?: Array<{ name: string }>;
}

export interface NovaOptions {
  /** How long a new server stays in BUILD before it is ACTIVE. */
  buildMs: () => number;
  /** The project's images, to check `imageRef`. */
  imageExists: (id: string) => boolean;
  /** Servers per page of `servers/detail` (Nova's `max_limit`, 1000 by default). */
  pageSize: () => number;
  /** Where the fake listens, for the absolute links Nova answers. */
  origin: () => string;
}

/**
 * Nova: servers (BUILD until `buildMs` has passed since the create, then ACTIVE), flavors and
 * keypairs: servers per project, keypairs per user, as Nova keeps them. Creates check their
 * references the way Nova does (400).
 */
export function novaService(resources: ProjectResources, options: NovaOptions): FakeService {
  const servers = (projectId: string) => resources.collection(projectId, 'servers');
  // Per user, as Nova keeps them: every tenant the one service user serves shares them.
  const keypairs = (userId: string) => resources.collection(`user:${userId}`, 'keypairs');
  const withStatus = (server: Record<string, unknown>) => {
    if (
      server.status === 'BUILD' &&
      Date.now() - (server._createdAt as number) >= options.buildMs()
    ) {
      server.status = 'ACTIVE';
      server['OS-EXT-STS:vm_state'] = 'active';
      server['OS-EXT-STS:task_state'] = null;
    }
    const { _createdAt, ...visible } = server;
    return visible;
  };
  return new FakeService('compute', '/compute/v2.1')
    .on('GET', /^\/servers\/detail$/, (r) => {
      // Paged as Nova pages: up to the limit after `marker`, and a `next` link on a full page.
      const all = [...servers(r.projectId).values()].map(withStatus);
      const marker = r.query.get('marker');
      const start = marker ? all.findIndex((server) => server.id === marker) + 1 : 0;
      if (marker && start === 0) return badRequest(`marker [${marker}] not found`);
      const limit = Math.min(Number(r.query.get('limit') ?? Infinity), options.pageSize());
      const page = all.slice(start, start + limit);
      const last = page.at(-1)?.id as string | undefined;
      return json(200, {
        servers: page,
        ...(page.length === limit && last
          ? {
              servers_links: [
                {
                  rel: 'next',
                  href: `${options.origin()}/compute/v2.1/servers/detail?limit=${limit}&marker=${last}`,
                },
              ],
            }
          : {}),
      });
    })
    .on('GET', /^\/servers\/([^/]+)$/, (r, [id]) => {
      const server = servers(r.projectId).get(id);
      return server ? json(200, { server: withStatus(server) }) : novaNotFound(`Instance ${id}`);
    })
    .on('DELETE', /^\/servers\/([^/]+)$/, (r, [id]) =>
      servers(r.projectId).delete(id) ? { status: 204 } : novaNotFound(`Instance ${id}`),
    )
    .on('POST', /^\/servers$/, (r) => {
      const body = (r.body as { server?: NovaServerBody } | undefined)?.server;
      if (!body || typeof body.name !== 'string')
        return badRequest("'server' with 'name' is required");
      const flavor = FAKE_FLAVORS.find((f) => f.id === body.flavorRef);
      if (!flavor) return badRequest(`Flavor ${String(body.flavorRef)} could not be found.`);
      if (!options.imageExists(String(body.imageRef)))
        return badRequest(`Image ${String(body.imageRef)} could not be found.`);
      if (body.key_name && !keypairs(r.userId).has(body.key_name)) {
        return badRequest(`Invalid key_name provided.`);
      }
      const id = randomUUID();
      const now = new Date().toISOString();
      servers(r.projectId).set(id, {
        id,
        name: body.name,
        status: 'BUILD',
        tenant_id: r.projectId,
        flavor: {
          original_name: flavor.name,
          vcpus: flavor.vcpus,
          ram: flavor.ram,
          disk: flavor.disk,
        },
        image: { id: body.imageRef },
        addresses: {},
        key_name: body.key_name ?? null,
        security_groups: body.security_groups ?? [{ name: 'default' }],
        metadata: {},
        created: now,
        updated: now,
        'OS-EXT-STS:vm_state': 'building',
        'OS-EXT-STS:task_state': 'scheduling',
        _createdAt: Date.now(),
      });
      return json(202, {
        server: {
          id,
          links: [],
          adminPass: randomBytes(8).toString('hex'),
          security_groups: body.security_groups ?? [{ name: 'default' }],
          'OS-DCF:diskConfig': 'MANUAL',
        },
      });
    })
    .on('GET', /^\/flavors\/detail$/, () => json(200, { flavors: FAKE_FLAVORS }))
    .on('GET', /^\/os-keypairs$/, (r) =>
      json(200, {
        keypairs: [...keypairs(r.userId).values()].map((k) => ({ keypair: listedKeypair(k) })),
      }),
    )
    .on('POST', /^\/os-keypairs$/, (r) => createKeypair(keypairs(r.userId), r))
    .on('GET', /^\/os-keypairs\/([^/]+)$/, (r, [name]) => {
      const keypair = keypairs(r.userId).get(decodeURIComponent(name));
      return keypair ? json(200, { keypair }) : keypairNotFound(name);
    })
    .on('DELETE', /^\/os-keypairs\/([^/]+)$/, (r, [name]) =>
      keypairs(r.userId).delete(decodeURIComponent(name)) ? { status: 204 } : keypairNotFound(name),
    );
}

export const FAKE_IMAGES = [
  {
    id: '5e1a4d4c-3f0b-4a57-9d41-0c1b0d1e6a01',
    name: 'ubuntu-24.04',
    status: 'active',
    size: 2361393152,
    visibility: 'public',
  },
  {
    id: '5e1a4d4c-3f0b-4a57-9d41-0c1b0d1e6a02',
    name: 'debian-12',
    status: 'active',
    size: 2147483648,
    visibility: 'public',
  },
];

/** Glance: the public images every project sees. */
export function glanceService(): FakeService {
  return new FakeService('image', '/image').on('GET', /^\/v2\/images$/, () =>
    json(200, { images: FAKE_IMAGES, schema: '/v2/schemas/images' }),
  );
}
