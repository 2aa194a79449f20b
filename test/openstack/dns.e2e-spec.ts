import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDnsWorld, dnsHelpers, type DnsWorld } from './dns-support.js';

describe('DNS zones over Designate', () => {
  let w: DnsWorld;
  const { q, get, post, patch, del, fresh, createZone, settle, dnsCalls, fields, auditOf } =
    dnsHelpers(() => w);

  beforeAll(async () => {
    w = await createDnsWorld();
  });
  afterAll(async () => {
    await w?.close();
  });

  it('creates a zone (202, PENDING) with the final dot, its verification shown, then lists and shows it ACTIVE', async () => {
    const name = fresh('Shop');
    const res = await post(`/dns/zones?${q()}`, {
      name,
      email: 'hostmaster@example.com',
      ttl: 600,
      description: 'the shop',
    }).expect(202);
    const zone = res.body.data;
    expect(res.body.metadata.project_id).toBe(w.projectId);
    expect(zone).toMatchObject({
      name: `${name.toLowerCase()}.`,
      email: 'hostmaster@example.com',
      ttl: 600,
      status: 'PENDING',
      action: 'CREATE',
      verification_record: `_platform-verification.${name.toLowerCase()}.`,
      verified: false,
      verified_at: null,
    });
    expect(zone.verification_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const sent = w.fake.callsTo('dns', 'POST').at(-1)!;
    expect(sent.projectId).toBe(w.keystoneProjectOf(w.projectId));
    expect(sent.body).toEqual({
      name: `${name.toLowerCase()}.`,
      email: 'hostmaster@example.com',
      type: 'PRIMARY',
      ttl: 600,
      description: 'the shop',
    });
    await settle();
    const shown = await get(`/dns/zones/${zone.id}?${q()}`).expect(200);
    expect(shown.body.data).toMatchObject({ id: zone.id, status: 'ACTIVE', action: 'NONE' });
    expect(shown.body.data.verification_token).toBe(zone.verification_token);
    const listed = await get(`/dns/zones?${q()}`).expect(200);
    expect(listed.body.data.find((z: { id: string }) => z.id === zone.id)).toMatchObject({
      status: 'ACTIVE',
      verification_token: zone.verification_token,
      verified: false,
    });
    expect(listed.body.metadata.count).toBe(listed.body.data.length);
    const other = await createZone();
    expect(other.verification_token).not.toBe(zone.verification_token);
  });

  it('takes project_id from the body, and answers 422 without one', async () => {
    await post('/dns/zones', {
      project_id: w.projectId,
      name: fresh(),
      email: 'hostmaster@example.com',
    }).expect(202);
    const missing = await get('/dns/zones').expect(422);
    expect(missing.body).toMatchObject({ code: 'validation_failed' });
    expect(fields(missing)).toEqual(['project_id']);
  });

  it('validates the zone before any upstream call (422 naming the field)', async () => {
    const before = dnsCalls();
    for (const name of ['com', 'bad_label.example.com', '-x.example.com', 'example.123', 42]) {
      const res = await post(`/dns/zones?${q()}`, { name, email: 'h@example.com' }).expect(422);
      expect(res.body.code).toBe('validation_failed');
      expect(fields(res)).toEqual(['name']);
    }
    const notString = await post(`/dns/zones?${q()}`, { name: 42, email: 'h@example.com' });
    expect(notString.body.details.fields).toEqual([
      { field: 'name', messages: ['name must be a string'] },
    ]);
    const res = await post(`/dns/zones?${q()}`, { name: fresh(), email: 'nope', ttl: 0 });
    expect(res.status).toBe(422);
    expect(fields(res).sort()).toEqual(['email', 'ttl']);
    expect(dnsCalls()).toBe(before);
  });

  it('answers 409 conflict for a name Designate has, in any project or organization', async () => {
    const name = fresh('taken');
    await createZone(name, w.otherProjectId);
    for (const [projectId, jwt] of [
      [w.projectId, w.owner.jwt],
      [w.strangerProjectId, w.stranger.jwt],
    ]) {
      const res = await post(
        `/dns/zones?${q(projectId)}`,
        { name: `${name}.`, email: 'h@example.com' },
        jwt,
      ).expect(409);
      expect(res.body).toMatchObject({
        code: 'conflict',
        details: { provider: 'openstack', upstream_status: 409, message: 'Duplicate Zone' },
      });
    }
  });

  it('lists every page of a paged Designate list', async () => {
    const pageSize = w.fake.designate.pageSize;
    w.fake.designate.pageSize = 2;
    try {
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push((await createZone(fresh('paged'), w.otherProjectId)).id);
      const before = w.fake.callsTo('dns', 'GET').length;
      const listed = await get(`/dns/zones?${q(w.otherProjectId)}`).expect(200);
      expect(listed.body.data.map((z: { id: string }) => z.id).sort()).toEqual(
        expect.arrayContaining(ids.sort()),
      );
      expect(w.fake.callsTo('dns', 'GET').length - before).toBeGreaterThanOrEqual(3);
    } finally {
      w.fake.designate.pageSize = pageSize;
    }
  });

  it('deletes a zone (202, action DELETE), audited; it is gone once Designate is done', async () => {
    const zone = await createZone();
    const res = await del(`/dns/zones/${zone.id}?${q()}`).expect(202);
    expect(res.body.data).toMatchObject({ id: zone.id, action: 'DELETE', status: 'PENDING' });
    await settle();
    await get(`/dns/zones/${zone.id}?${q()}`).expect(404);
    await del(`/dns/zones/${zone.id}?${q()}`).expect(404);
    expect(await auditOf(zone.id)).toEqual(['dns_zones.create', 'dns_zones.delete']);
  });

  it('maps upstream failures: 400 as 422 upstream_rejected, 500 as 502 provider_unavailable', async () => {
    w.fake.fail({
      service: 'dns',
      method: 'POST',
      path: /^\/v2\/zones$/,
      status: 400,
      body: { code: 400, type: 'invalid_object', message: 'Invalid TLD' },
    });
    const rejected = await post(`/dns/zones?${q()}`, { name: fresh(), email: 'h@example.com' });
    expect(rejected.status).toBe(422);
    expect(rejected.body).toMatchObject({
      code: 'upstream_rejected',
      details: { message: 'Invalid TLD' },
    });
    w.fake.fail({ service: 'dns', method: 'POST', path: /^\/v2\/zones$/, status: 503 });
    const down = await post(`/dns/zones?${q()}`, { name: fresh(), email: 'h@example.com' });
    expect(down.status).toBe(502);
    expect(down.body).toMatchObject({ code: 'provider_unavailable', retryable: true });
  });

  describe('access and tenancy', () => {
    let zone: { id: string; name: string };
    beforeAll(async () => {
      zone = await createZone(fresh('guarded'));
      await post(`/dns/zones/${zone.id}/records?${q()}`, {
        name: 'www',
        type: 'A',
        records: ['192.0.2.1'],
      }).expect(202);
    });

    it('Axis A: a viewer reads but changes nothing (403 forbidden); a developer does', async () => {
      const viewer = w.viewer.jwt;
      await get(`/dns/zones?${q()}`, viewer).expect(200);
      await get(`/dns/zones/${zone.id}/records?${q()}`, viewer).expect(200);
      const refused = [
        await post(`/dns/zones?${q()}`, { name: fresh(), email: 'h@example.com' }, viewer),
        await post(
          `/dns/zones/${zone.id}/records?${q()}`,
          { name: 'v', type: 'A', records: ['192.0.2.1'] },
          viewer,
        ),
        await patch(`/dns/zones/${zone.id}/records/www/A?${q()}`, { ttl: 60 }, viewer),
        await del(`/dns/zones/${zone.id}/records/www/A?${q()}`, viewer),
        await post(`/dns/domains/${zone.id}/verify?${q()}`, {}, viewer),
        await del(`/dns/zones/${zone.id}?${q()}`, viewer),
      ];
      expect(refused.map((r) => [r.status, r.body.code])).toEqual(
        Array(6).fill([403, 'forbidden']),
      );
      const dev = w.developer.jwt;
      const created = (
        await post(`/dns/zones?${q()}`, { name: fresh(), email: 'h@example.com' }, dev).expect(202)
      ).body.data;
      await post(
        `/dns/zones/${created.id}/records?${q()}`,
        { name: 'd', type: 'A', records: ['192.0.2.1'] },
        dev,
      ).expect(202);
      await patch(`/dns/zones/${created.id}/records/d/A?${q()}`, { ttl: 60 }, dev).expect(202);
      await del(`/dns/zones/${created.id}/records/d/A?${q()}`, dev).expect(202);
      await del(`/dns/zones/${created.id}?${q()}`, dev).expect(202);
    });

    it('Axis B: zone, record and domain_verification kinds gate their creates; reads need none', async () => {
      const bare = w.bareProjectId;
      await get(`/dns/zones?${q(bare)}`).expect(200);
      const noZone = await post(`/dns/zones?${q(bare)}`, {
        name: fresh(),
        email: 'h@example.com',
      }).expect(403);
      expect(noZone.body.code).toBe('dns_capability_not_enabled');
      await w.grant(bare, 'dns', ['zone']);
      const own = await createZone(fresh(), bare);
      const noRecord = await post(`/dns/zones/${own.id}/records?${q(bare)}`, {
        name: 'www',
        type: 'A',
        records: ['192.0.2.1'],
      }).expect(403);
      expect(noRecord.body.code).toBe('dns_capability_not_enabled');
      const noVerify = await post(`/dns/domains/${own.id}/verify?${q(bare)}`).expect(403);
      expect(noVerify.body.code).toBe('dns_capability_not_enabled');
      // Changes of what exists are not creates.
      await del(`/dns/zones/${own.id}?${q(bare)}`).expect(202);
    });

    it("keeps projects apart: another project's zone id is 404 on every route", async () => {
      const other = q(w.otherProjectId);
      const answers = [
        await get(`/dns/zones/${zone.id}?${other}`),
        await get(`/dns/zones/${zone.id}/records?${other}`),
        await post(`/dns/zones/${zone.id}/records?${other}`, {
          name: 'x',
          type: 'A',
          records: ['192.0.2.1'],
        }),
        await patch(`/dns/zones/${zone.id}/records/www/A?${other}`, { ttl: 60 }),
        await del(`/dns/zones/${zone.id}/records/www/A?${other}`),
        await post(`/dns/domains/${zone.id}/verify?${other}`),
        await del(`/dns/zones/${zone.id}?${other}`),
      ];
      expect(answers.map((r) => [r.status, r.body.code])).toEqual(
        Array(7).fill([404, 'not_found']),
      );
      const listed = await get(`/dns/zones?${other}`).expect(200);
      expect(listed.body.data.map((z: { id: string }) => z.id)).not.toContain(zone.id);
      // Another organization's member does not even see the project.
      await get(`/dns/zones?${q()}`, w.stranger.jwt).expect(404);
      await get(`/dns/zones/${zone.id}/records?${q()}`).expect(200);
    });
  });
});
