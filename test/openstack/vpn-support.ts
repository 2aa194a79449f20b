import { expect } from '@jest/globals';
import { requests } from './requests.js';
import type { CloudWorld } from './support.js';

export interface Peer {
  id: string;
  ikepolicy_id: string;
  ipsecpolicy_id: string;
  local_ep_group_id: string;
  peer_ep_group_id: string;
  [field: string]: unknown;
}

export interface Gateway {
  id: string;
  router_id: string;
  local_subnet_id: string;
  local_cidr: string;
  [field: string]: unknown;
}

/** The pre-shared key of the peers the helpers make. */
export const PSK = 'correct-horse-battery-staple';

export const peerBody = (extra: Record<string, unknown> = {}) => ({
  name: 'office',
  peer_address: '198.51.100.7',
  peer_cidrs: ['192.168.10.0/24'],
  psk: PSK,
  ...extra,
});

/** No answer may carry the pre-shared key: neither its value nor a `psk` field at any depth. */
export const expectNoPsk = (body: unknown) => {
  expect(JSON.stringify(body)).not.toContain(PSK);
  expect(JSON.stringify(body)).not.toContain('"psk":');
};

/** The owner's VPN routes, and what the fake holds in the organization's Keystone project. */
export function vpnOf(w: CloudWorld) {
  const api = requests(w);
  const gateways = `/organizations/${w.owner.organizationId}/vpn_gateways`;
  const orgProject = () => w.fake.projectIdFor(`platform-org-${w.owner.organizationId}`)!;
  return {
    api,
    gateways,
    orgProject,
    inOrg: (collection: string) => [
      ...w.fake.resources.collection(orgProject(), collection).values(),
    ],
    createGateway: async (name = 'main', extra: Record<string, unknown> = {}) =>
      (await api.post(gateways, { name, ...extra }).expect(201)).body.data as Gateway,
    /** The ids of what the organization's project holds of each kind a gateway is made of. */
    orgState: () =>
      Object.fromEntries(
        [
          'networks',
          'subnets',
          'ports',
          'routers',
          'vpnservices',
          'endpoint_groups',
          'ikepolicies',
          'ipsecpolicies',
          'ipsec_site_connections',
        ].map((collection) => [
          collection,
          [...w.fake.resources.collection(orgProject(), collection).keys()].sort(),
        ]),
      ),
    createPeer: async (gatewayId: string, extra: Record<string, unknown> = {}) =>
      (await api.post(`${gateways}/${gatewayId}/vpn_peers`, peerBody(extra)).expect(201)).body
        .data as Peer,
  };
}
