import type { KindStore } from './kind-store.js';
import type { KindRegistration } from './kinds.js';

const READ_WRITE = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

function apiResources(registration: KindRegistration) {
  const resource = {
    name: registration.plural,
    singularName: registration.kind.toLowerCase(),
    namespaced: registration.namespaced,
    kind: registration.kind,
    verbs: READ_WRITE,
    ...(registration.shortNames?.length ? { shortNames: registration.shortNames } : {}),
  };
  const subresource = (name: string, verbs: string[]) => ({
    name: `${registration.plural}/${name}`,
    singularName: '',
    namespaced: registration.namespaced,
    kind: registration.kind,
    verbs,
  });
  // The resource itself comes first: clients look a kind up by its first match.
  return [
    resource,
    ...(registration.statusSubresource ? [subresource('status', ['get', 'patch', 'update'])] : []),
    ...(registration.group === '' && registration.plural === 'pods'
      ? [subresource('log', ['get'])]
      : []),
  ];
}

/** /api/v1 or /apis/<group>/<version>. */
export function apiResourceList(groupVersion: string, stores: KindStore[]) {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: stores.flatMap((store) => apiResources(store.registration)),
  };
}

/** /api */
export function apiVersions(serverAddress: string) {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(group: string, versions: string[]) {
  const entries = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: entries, preferredVersion: entries[0] };
}

/** /apis/<group> */
export function apiGroupDocument(group: string, versions: string[]) {
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group, versions) };
}

/** /apis */
export function apiGroupList(groups: Map<string, string[]>) {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...groups.entries()].map(([group, versions]) => apiGroup(group, versions)),
  };
}

export const VERSION_INFO = {
  major: '1',
  minor: '31',
  gitVersion: 'v1.31.0',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2024-08-13T00:00:00Z',
  goVersion: 'go1.22.5',
  compiler: 'gc',
  platform: 'linux/amd64',
};
