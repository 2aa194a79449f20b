import { lookup } from 'node:dns/promises';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Every address a host name resolves to. The outbound client vets all of them and connects
 * only to those, so a second lookup can never hand the connection another address.
 */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The injection token of the resolver; tests replace it with a scripted one. */
export const OUTBOUND_RESOLVER = Symbol('OUTBOUND_RESOLVER');

/** The system resolver (getaddrinfo: /etc/hosts, then DNS), every address in its order. */
export const systemResolver: HostResolver = async (hostname) => {
  const addresses = await lookup(hostname, { all: true, order: 'verbatim' });
  return addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};
