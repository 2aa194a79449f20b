import { randomUUID } from 'node:crypto';
import { type FakeReply, FakeService, json, type ProjectResources } from './fake-service.js';

type Stored = Record<string, unknown> & { id: string };
type Collection = 'loadbalancers' | 'listeners' | 'pools' | 'healthmonitors';

/** Octavia's resource names in its error messages. */
const RESOURCE: Record<Collection, string> = {
  loadbalancers: 'Load Balancer',
  listeners: 'Listener',
  pools: 'Pool',
  healthmonitors: 'Health Monitor',
};
/** The query parameters Octavia reads for itself rather than as filters. */
const NOT_FILTERS = new Set(['fields', 'limit', 'marker', 'page_reverse', 'sort', 'sort_key']);

const fault = (status: number, faultstring: string): FakeReply =>
  json(status, { faultcode: 'Client', faultstring, debuginfo: null });

/** Drops the fake's own bookkeeping (`_pool_id`) from what it answers. */
const visible = (object: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(object).filter(([key]) => !key.startsWith('_')));

/**
 * Octavia (`/v2/lbaas`): load balancers, listeners, pools, members and health monitors of each
 * project, read-only (tests put them in place with the `seed*` helpers). Lists show the
 * token's project only and filter by attribute (`loadbalancer_id` on listeners and pools); an
 * item of another project is found and then refused by policy, 403, as Octavia does.
 */
export function octaviaService(resources: ProjectResources): FakeService {
  const service = new FakeService('load-balancer', '/load-balancer');
  /** The project's own object, or Octavia's answer: 403 for another project's, else 404. */
  const item = (
    projectId: string,
    collection: Collection,
    id: string,
  ): { found: Stored } | { refused: FakeReply } => {
    const own = resources.collection(projectId, collection).get(id);
    if (own) return { found: own as Stored };
    if (resources.everywhere(collection).some((other) => other.id === id))
      return { refused: fault(403, 'Policy does not allow this request to be performed.') };
    return { refused: fault(404, `${RESOURCE[collection]} ${id} not found.`) };
  };
  for (const collection of Object.keys(RESOURCE) as Collection[]) {
    service
      .on('GET', new RegExp(`^/v2/lbaas/${collection}$`), (r) =>
        json(200, {
          [collection]: [...resources.collection(r.projectId, collection).values()]
            .filter((object) => matches(object, r.query))
            .map(visible),
          [`${collection}_links`]: [],
        }),
      )
      .on('GET', new RegExp(`^/v2/lbaas/${collection}/([^/]+)$`), (r, [id]) => {
        const lookup = item(r.projectId, collection, id);
        return 'refused' in lookup
          ? lookup.refused
          : json(200, { [collection.replace(/s$/, '')]: visible(lookup.found) });
      });
  }
  return service.on('GET', /^\/v2\/lbaas\/pools\/([^/]+)\/members$/, (r, [poolId]) => {
    const pool = item(r.projectId, 'pools', poolId);
    if ('refused' in pool) return pool.refused;
    return json(200, {
      members: [...resources.collection(r.projectId, 'members').values()]
        .filter((member) => member._pool_id === poolId && matches(member, r.query))
        .map(visible),
      members_links: [],
    });
  });
}

/** Octavia's list filters: `loadbalancer_id` by the object's load balancers, others by value. */
function matches(object: Record<string, unknown>, query: URLSearchParams): boolean {
  for (const [key, value] of query) {
    if (NOT_FILTERS.has(key)) continue;
    if (key === 'loadbalancer_id') {
      const owners = (object.loadbalancers as Array<{ id: string }> | undefined) ?? [];
      if (!owners.some((owner) => owner.id === value)) return false;
    } else if (String(object[key]) !== value) {
      return false;
    }
  }
  return true;
}

const common = (keystoneProjectId: string) => ({
  description: '',
  project_id: keystoneProjectId,
  admin_state_up: true,
  provisioning_status: 'ACTIVE',
  operating_status: 'ONLINE',
  tags: [],
  created_at: new Date().toISOString(),
  updated_at: null,
});

const links = (object: Record<string, unknown>, key: string) =>
  object[key] as Array<{ id: string }>;

/** A load balancer of a Keystone project, with `fields` over the defaults. */
export function seedLoadBalancer(
  resources: ProjectResources,
  keystoneProjectId: string,
  fields: Record<string, unknown> = {},
): Stored {
  return resources.add(keystoneProjectId, 'loadbalancers', {
    ...common(keystoneProjectId),
    name: 'web',
    vip_address: '10.0.0.10',
    vip_port_id: randomUUID(),
    vip_subnet_id: randomUUID(),
    vip_network_id: randomUUID(),
    vip_qos_policy_id: null,
    provider: 'amphora',
    flavor_id: null,
    availability_zone: null,
    listeners: [],
    pools: [],
    ...fields,
  });
}

/** A listener on `loadBalancer`, linked both ways. */
export function seedListener(
  resources: ProjectResources,
  keystoneProjectId: string,
  loadBalancer: Stored,
  fields: Record<string, unknown> = {},
): Stored {
  const listener = resources.add(keystoneProjectId, 'listeners', {
    ...common(keystoneProjectId),
    name: 'http',
    protocol: 'HTTP',
    protocol_port: 80,
    connection_limit: -1,
    default_pool_id: null,
    loadbalancers: [{ id: loadBalancer.id }],
    l7policies: [],
    insert_headers: {},
    ...fields,
  });
  links(loadBalancer, 'listeners').push({ id: listener.id });
  return listener;
}

/** A pool on `loadBalancer` (and the default pool of `listener`, when given). */
export function seedPool(
  resources: ProjectResources,
  keystoneProjectId: string,
  loadBalancer: Stored,
  fields: Record<string, unknown> = {},
  listener?: Stored,
): Stored {
  const pool = resources.add(keystoneProjectId, 'pools', {
    ...common(keystoneProjectId),
    name: 'backends',
    protocol: 'HTTP',
    lb_algorithm: 'ROUND_ROBIN',
    session_persistence: null,
    healthmonitor_id: null,
    loadbalancers: [{ id: loadBalancer.id }],
    listeners: listener ? [{ id: listener.id }] : [],
    members: [],
    ...fields,
  });
  links(loadBalancer, 'pools').push({ id: pool.id });
  if (listener) listener.default_pool_id ??= pool.id;
  return pool;
}

/** A member of `pool`. */
export function seedMember(
  resources: ProjectResources,
  keystoneProjectId: string,
  pool: Stored,
  fields: Record<string, unknown> = {},
): Stored {
  const member = resources.add(keystoneProjectId, 'members', {
    ...common(keystoneProjectId),
    name: '',
    address: '10.0.0.21',
    protocol_port: 8080,
    weight: 1,
    subnet_id: null,
    monitor_address: null,
    monitor_port: null,
    backup: false,
    _pool_id: pool.id,
    ...fields,
  });
  links(pool, 'members').push({ id: member.id });
  return member;
}

/** The health monitor of `pool`. */
export function seedHealthMonitor(
  resources: ProjectResources,
  keystoneProjectId: string,
  pool: Stored,
  fields: Record<string, unknown> = {},
): Stored {
  const monitor = resources.add(keystoneProjectId, 'healthmonitors', {
    ...common(keystoneProjectId),
    name: '',
    type: 'HTTP',
    delay: 5,
    timeout: 3,
    max_retries: 3,
    max_retries_down: 3,
    http_method: 'GET',
    url_path: '/healthz',
    expected_codes: '200',
    pools: [{ id: pool.id }],
    ...fields,
  });
  pool.healthmonitor_id = monitor.id;
  return monitor;
}

/**
 * A load balancer with one HTTP listener whose default pool has two members and a health
 * monitor: what most tests need.
 */
export function seedLoadBalancerStack(
  resources: ProjectResources,
  keystoneProjectId: string,
  name = 'web',
) {
  const loadBalancer = seedLoadBalancer(resources, keystoneProjectId, { name });
  const listener = seedListener(resources, keystoneProjectId, loadBalancer, {
    name: `${name}-http`,
  });
  const pool = seedPool(
    resources,
    keystoneProjectId,
    loadBalancer,
    { name: `${name}-pool` },
    listener,
  );
  const members = [
    seedMember(resources, keystoneProjectId, pool, { address: '10.0.0.21' }),
    seedMember(resources, keystoneProjectId, pool, { address: '10.0.0.22' }),
  ];
  const healthMonitor = seedHealthMonitor(resources, keystoneProjectId, pool, {
    name: `${name}-check`,
  });
  return { loadBalancer, listener, pool, members, healthMonitor };
}
