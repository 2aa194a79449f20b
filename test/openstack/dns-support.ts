import { FakeDnsServer } from '@platform/testing';
import { DataSource } from 'typeorm';
import { bearer } from '../support/identity.js';
import { type CloudWorld, createCloudWorld } from './support.js';

/** The cloud world with a name server of its own, which domain verification asks. */
export interface DnsWorld extends CloudWorld {
  dns: FakeDnsServer;
}

export async function createDnsWorld(): Promise<DnsWorld> {
  const dns = await FakeDnsServer.start();
  try {
    const w = await createCloudWorld({ config: { dnsResolver: dns.address } });
    return {
      ...w,
      dns,
      close: async () => {
        await w.close();
        await dns.close();
      },
    };
  } catch (error) {
    await dns.close();
    throw error;
  }
}

export interface ZoneAnswer {
  id: string;
  name: string;
  verification_token: string;
}

/** Requests and checks the DNS tests share, against the world `world()` answers. */
export function dnsHelpers(world: () => CloudWorld) {
  let serial = 0;
  const q = (projectId = world().projectId) => `project_id=${projectId}`;
  const as = (jwt?: string) => bearer(jwt ?? world().owner.jwt);
  const get = (path: string, jwt?: string) => world().t.request().get(path).set(as(jwt));
  const post = (path: string, body: object = {}, jwt?: string) =>
    world().t.request().post(path).set(as(jwt)).send(body);
  /** Zone names are unique across all projects in Designate: each test takes fresh ones. */
  const fresh = (label = 'zone') => `${label}-${++serial}.example.com`;
  const auditRows = async (targetId: string) =>
    (await world()
      .t.get(DataSource)
      .query(
        `SELECT action, target_type, project_id, actor_account_id, details FROM audit_log WHERE target_id = $1 ORDER BY action`,
        [targetId],
      )) as Array<{ action: string } & Record<string, unknown>>;
  return {
    q,
    get,
    post,
    patch: (path: string, body: object, jwt?: string) =>
      world().t.request().patch(path).set(as(jwt)).send(body),
    del: (path: string, jwt?: string) => world().t.request().delete(path).set(as(jwt)),
    fresh,
    createZone: async (name = fresh(), projectId = world().projectId) =>
      (
        await post(`/dns/zones?${q(projectId)}`, { name, email: 'hostmaster@example.com' }).expect(
          202,
        )
      ).body.data as ZoneAnswer,
    /** Waits until Designate's pending changes are done. */
    settle: () =>
      new Promise((resolve) => setTimeout(resolve, world().fake.designate.activateMs + 20)),
    dnsCalls: () => world().fake.callsTo('dns').length,
    fields: (res: { body: { details: { fields: Array<{ field: string }> } } }) =>
      res.body.details.fields.map((f) => f.field),
    auditRows,
    auditOf: async (targetId: string) => (await auditRows(targetId)).map((row) => row.action),
  };
}
