import type { V1ObjectMeta } from '@kubernetes/client-node';

/** Where a kind is served: its API group ('' for core), version, resource plural and scope. */
export interface KindRef {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export interface KubeObject<Spec = unknown, Status = unknown> {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta;
  spec?: Spec;
  status?: Status;
}

export const CoreKinds = {
  Pod: { group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true },
  PersistentVolumeClaim: {
    group: '',
    version: 'v1',
    kind: 'PersistentVolumeClaim',
    plural: 'persistentvolumeclaims',
    namespaced: true,
  },
  PersistentVolume: {
    group: '',
    version: 'v1',
    kind: 'PersistentVolume',
    plural: 'persistentvolumes',
    namespaced: false,
  },
  Secret: { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
  Event: { group: '', version: 'v1', kind: 'Event', plural: 'events', namespaced: true },
  Job: { group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', namespaced: true },
  CronJob: { group: 'batch', version: 'v1', kind: 'CronJob', plural: 'cronjobs', namespaced: true },
  Lease: {
    group: 'coordination.k8s.io',
    version: 'v1',
    kind: 'Lease',
    plural: 'leases',
    namespaced: true,
  },
} satisfies Record<string, KindRef>;

/** Kinds of other operators that the platform's operators and API write: Flux and CloudNativePG. */
export const ThirdPartyKinds = {
  HelmRelease: {
    group: 'helm.toolkit.fluxcd.io',
    version: 'v2',
    kind: 'HelmRelease',
    plural: 'helmreleases',
    namespaced: true,
  },
  HelmRepository: {
    group: 'source.toolkit.fluxcd.io',
    version: 'v1',
    kind: 'HelmRepository',
    plural: 'helmrepositories',
    namespaced: true,
  },
  /** CloudNativePG's PostgreSQL cluster. */
  PostgresCluster: {
    group: 'postgresql.cnpg.io',
    version: 'v1',
    kind: 'Cluster',
    plural: 'clusters',
    namespaced: true,
  },
} satisfies Record<string, KindRef>;

export function apiVersionOf(kind: KindRef): string {
  return kind.group === '' ? kind.version : `${kind.group}/${kind.version}`;
}

/** The group part of an object's apiVersion ('' for core). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** A stable name of a kind, e.g. `volumebackups.backups.k8s.neutral.com/v1`. */
export function kindId(kind: KindRef): string {
  return `${kind.plural}${kind.group ? `.${kind.group}` : ''}/${kind.version}`;
}

/** The REST path of a kind's collection, or of one object (and its subresource). */
export function resourcePath(
  kind: KindRef,
  namespace: string | undefined,
  name?: string,
  subresource?: string,
): string {
  const base = kind.group === '' ? `/api/${kind.version}` : `/apis/${kind.group}/${kind.version}`;
  const scope = kind.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  let path = `${base}${scope}/${kind.plural}`;
  if (name !== undefined) path += `/${encodeURIComponent(name)}`;
  if (subresource !== undefined) path += `/${subresource}`;
  return path;
}

/** "<namespace>/<name>" for namespaced objects, "<name>" for cluster-scoped ones. */
export function objectKey(object: KubeObject): string {
  return keyOf(object.metadata.namespace, object.metadata.name ?? '');
}

export function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const slash = key.indexOf('/');
  return slash < 0
    ? { namespace: undefined, name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
