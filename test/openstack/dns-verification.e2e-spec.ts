import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { createDnsWorld, dnsHelpers, type DnsWorld } from './dns-support.js';

describe('Domain verification of DNS zones', () => {
  let w: DnsWorld;
  const { q, get, post, del, fresh, createZone, auditOf } = dnsHelpers(() => w);

  beforeAll(async () => {
    w = await createDnsWorld();
  });
  afterAll(async () => {
    await w?.close();
  });

  const verify = (zoneId: string, projectId = w.projectId) =>
    post(`/dns/domains/${zoneId}/verify?${q(projectId)}`);

  it('verifies a zone whose TXT record carries its token (200), stores it, and shows it on the zone', async () => {
    const zone = await createZone(fresh('proof'));
    // Among other TXT values, and split into two strings, as long values may be.
    const token = zone.verification_token;
    w.dns.setTxt(`_platform-verification.${zone.name}`, [
      'google-site-verification=x',
      [token.slice(0, 20), token.slice(20)],
    ]);
    const res = await verify(zone.id).expect(200);
    expect(res.body.data).toMatchObject({
      id: zone.id,
      verified: true,
      verified_at: w.t.clock.now().toISOString(),
      verification_token: token,
    });
    expect(w.dns.questions.at(-1)).toMatchObject({
      name: `_platform-verification.${zone.name.slice(0, -1)}`,
      type: 16,
    });
    const listed = await get(`/dns/zones?${q()}`).expect(200);
    expect(listed.body.data.find((z: { id: string }) => z.id === zone.id)).toMatchObject({
      verified: true,
      verified_at: res.body.data.verified_at,
    });
    // The proof stands once made: no new lookup, the same time, even without the record.
    w.dns.remove(`_platform-verification.${zone.name}`);
    const asked = w.dns.questions.length;
    w.t.clock.advance({ minutes: 1 });
    const again = await verify(zone.id).expect(200);
    expect(again.body.data.verified_at).toBe(res.body.data.verified_at);
    expect(w.dns.questions).toHaveLength(asked);
    expect(await auditOf(zone.id)).toEqual(['dns_domains.verify', 'dns_zones.create']);
    // Deleting the zone drops its verification: a new zone of the name must prove it again.
    await del(`/dns/zones/${zone.id}?${q()}`).expect(202);
    const rows = await w.t
      .get(DataSource)
      .query(`SELECT 1 FROM dns_zone_verification WHERE zone_id = $1`, [zone.id]);
    expect(rows).toHaveLength(0);
  });

  it('answers 422 verification_failed saying what was expected where: wrong value, no TXT, no name', async () => {
    const zone = await createZone(fresh('unproven'));
    const record = `_platform-verification.${zone.name}`;
    w.dns.setTxt(record, ['not-the-token']);
    const wrong = await verify(zone.id).expect(422);
    expect(wrong.body).toMatchObject({
      code: 'verification_failed',
      details: {
        record_name: record,
        expected: zone.verification_token,
        outcome: 'found',
        found: ['not-the-token'],
      },
    });
    expect(wrong.body.message).toBe(
      `Expected a TXT record ${record} with the value "${zone.verification_token}"; found only "not-the-token"`,
    );
    w.dns.setTxt(record, []);
    w.dns.setAddresses(record, ['192.0.2.1']);
    const noTxt = await verify(zone.id).expect(422);
    expect(noTxt.body.details).toMatchObject({ outcome: 'no_txt_record', found: [] });
    expect(noTxt.body.message).toMatch(/; the name has no TXT record$/);
    w.dns.remove(record);
    const noName = await verify(zone.id).expect(422);
    expect(noName.body.details).toMatchObject({ outcome: 'no_such_name' });
    expect(noName.body.message).toContain(zone.verification_token);
    const shown = await get(`/dns/zones/${zone.id}?${q()}`).expect(200);
    expect(shown.body.data).toMatchObject({ verified: false, verified_at: null });
    expect(await auditOf(zone.id)).toEqual(['dns_zones.create']);
  });

  it('answers 502 provider_unavailable (retryable) when the resolver fails, times out or is unreachable', async () => {
    const zone = await createZone(fresh('unreachable'));
    for (const failure of ['servfail', 'refused', 'drop'] as const) {
      w.dns.failure = failure;
      const started = Date.now();
      const res = await verify(zone.id);
      expect({ failure, status: res.status }).toEqual({ failure, status: 502 });
      expect(res.body).toMatchObject({
        code: 'provider_unavailable',
        retryable: true,
        details: { provider: 'dns_resolver' },
      });
      expect(Date.now() - started).toBeLessThan(3000);
    }
    w.dns.failure = null;
    await w.dns.close();
    const refused = await verify(zone.id).expect(502);
    expect(refused.body).toMatchObject({
      code: 'provider_unavailable',
      details: { resolver_error: 'ECONNREFUSED' },
    });
    expect(await auditOf(zone.id)).toEqual(['dns_zones.create']);
  });
});
