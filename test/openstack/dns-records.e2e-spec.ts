import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDnsWorld, dnsHelpers, type DnsWorld } from './dns-support.js';

describe('DNS record sets over Designate', () => {
  let w: DnsWorld;
  const {
    q,
    get,
    post,
    patch,
    del,
    fresh,
    createZone,
    settle,
    dnsCalls,
    fields,
    auditRows,
    auditOf,
  } = dnsHelpers(() => w);

  let zone: { id: string; name: string };
  beforeAll(async () => {
    w = await createDnsWorld();
    zone = await createZone(fresh('records'));
  });
  afterAll(async () => {
    await w?.close();
  });

  const records = (zoneId = zone.id, projectId = w.projectId) =>
    `/dns/zones/${zoneId}/records?${q(projectId)}`;
  const one = (name: string, type: string, zoneId = zone.id, projectId = w.projectId) =>
    `/dns/zones/${zoneId}/records/${encodeURIComponent(name)}/${type}?${q(projectId)}`;

  it('creates record sets from relative, absolute and zone-suffixed names (202, PENDING), normalising the data', async () => {
    const www = await post(records(), {
      name: 'www',
      type: 'a',
      records: ['192.0.2.10'],
      ttl: 300,
    }).expect(202);
    expect(www.body.data).toMatchObject({
      zone_id: zone.id,
      name: `www.${zone.name}`,
      type: 'A',
      records: ['192.0.2.10'],
      ttl: 300,
      status: 'PENDING',
      action: 'CREATE',
    });
    const bare = zone.name.slice(0, -1);
    await post(records(), {
      name: `api.${bare}.`,
      type: 'AAAA',
      records: ['2001:db8::1'],
    }).expect(202);
    await post(records(), {
      name: `Mail.${bare}`,
      type: 'CNAME',
      records: ['mx.provider.example'],
    }).expect(202);
    const mx = await post(records(), {
      name: '@',
      type: 'MX',
      records: ['10   mx.provider.example', '20 backup.provider.example.'],
    }).expect(202);
    expect(mx.body.data).toMatchObject({
      name: zone.name,
      records: ['10 mx.provider.example.', '20 backup.provider.example.'],
    });
    await post(records(), {
      name: '_sip._tcp',
      type: 'SRV',
      records: ['10 5 5060 sip.provider.example'],
    }).expect(202);
    await post(records(), {
      name: '@',
      type: 'TXT',
      records: ['"v=spf1 -all"', '"part one" "part two"'],
    }).expect(202);
    const sent = w.fake
      .callsTo('dns', 'POST')
      .filter((c) => c.path.endsWith('/recordsets'))
      .map((c) => c.body);
    expect(sent).toContainEqual({
      name: `mail.${zone.name}`,
      type: 'CNAME',
      records: ['mx.provider.example.'],
    });
    expect(sent).toContainEqual({
      name: `api.${zone.name}`,
      type: 'AAAA',
      records: ['2001:db8::1'],
    });

    const listed = await get(records()).expect(200);
    const kinds = listed.body.data.map(
      (rs: { name: string; type: string }) => `${rs.name} ${rs.type}`,
    );
    expect(kinds.sort()).toEqual(
      [
        `${zone.name} SOA`,
        `${zone.name} NS`,
        `${zone.name} MX`,
        `${zone.name} TXT`,
        `www.${zone.name} A`,
        `api.${zone.name} AAAA`,
        `mail.${zone.name} CNAME`,
        `_sip._tcp.${zone.name} SRV`,
      ].sort(),
    );
    expect(await auditRows(www.body.data.id)).toEqual([
      {
        action: 'dns_records.create',
        target_type: 'dns_recordset',
        project_id: w.projectId,
        actor_account_id: w.owner.accountId,
        details: { zone_id: zone.id, name: `www.${zone.name}`, type: 'A' },
      },
    ]);
  });

  it('validates records per type before any upstream call', async () => {
    const before = dnsCalls();
    const cases: Array<[object, string[]]> = [
      [{ name: 'a', type: 'A', records: ['2001:db8::1'] }, ['records']],
      [{ name: 'a', type: 'AAAA', records: ['192.0.2.1'] }, ['records']],
      [{ name: 'a', type: 'CNAME', records: ['x.example.', 'y.example.'] }, ['records']],
      [{ name: 'a', type: 'MX', records: ['mail.example.com'] }, ['records']],
      [{ name: 'a', type: 'TXT', records: ['unquoted'] }, ['records']],
      [{ name: 'a', type: 'TXT', records: [`"${'x'.repeat(256)}"`] }, ['records']],
      [{ name: 'a', type: 'SRV', records: ['1 2 sip.example.'] }, ['records']],
      [{ name: 'a', type: 'SOA', records: ['x'] }, ['type']],
      [{ name: 'a b', type: 'A', records: ['192.0.2.1'] }, ['name']],
      [{ name: 'a', type: 'A', records: [] }, ['records']],
      [{ name: 'a', type: 'A', records: ['192.0.2.1', '192.0.2.1'] }, ['records']],
    ];
    for (const [body, expected] of cases) {
      const res = await post(records(), body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({
        body,
        status: 422,
        code: 'validation_failed',
      });
      expect(fields(res)).toEqual(expected);
    }
    expect(dnsCalls()).toBe(before);
    // Outside the zone: known only once the zone is read, and still nothing is written.
    const posts = w.fake.callsTo('dns', 'POST').length;
    const outside = await post(records(), {
      name: 'www.example.org.',
      type: 'A',
      records: ['192.0.2.1'],
    }).expect(422);
    expect(outside.body.details.fields).toEqual([
      { field: 'name', messages: [`name www.example.org. is not in the zone ${zone.name}`] },
    ]);
    expect(w.fake.callsTo('dns', 'POST')).toHaveLength(posts);
  });

  it('answers 409 conflict for a second record set of the same name and type', async () => {
    await post(records(), { name: 'dup', type: 'A', records: ['192.0.2.1'] }).expect(202);
    const res = await post(records(), {
      name: `dup.${zone.name}`,
      type: 'A',
      records: ['192.0.2.2'],
    }).expect(409);
    expect(res.body).toMatchObject({
      code: 'conflict',
      details: { message: 'Duplicate RecordSet' },
    });
  });

  it('updates a record set found by name and type, given relative or absolute (202)', async () => {
    const created = (
      await post(records(), { name: 'edit', type: 'A', records: ['192.0.2.1'] }).expect(202)
    ).body.data;
    const res = await patch(one('edit', 'a'), {
      records: ['192.0.2.7', '192.0.2.8'],
      ttl: 120,
    }).expect(202);
    expect(res.body.data).toMatchObject({
      id: created.id,
      records: ['192.0.2.7', '192.0.2.8'],
      ttl: 120,
      action: 'UPDATE',
      status: 'PENDING',
    });
    const put = w.fake.callsTo('dns', 'PUT').at(-1)!;
    expect(put.path).toBe(`/v2/zones/${zone.id}/recordsets/${created.id}`);
    expect(put.body).toEqual({ records: ['192.0.2.7', '192.0.2.8'], ttl: 120 });
    const lookup = w.fake
      .callsTo('dns', 'GET')
      .filter((c) => c.path.endsWith('/recordsets'))
      .at(-1)!;
    expect(lookup.path).toBe(`/v2/zones/${zone.id}/recordsets`);
    await patch(one(`edit.${zone.name}`, 'A'), { description: 'absolute' }).expect(202);
    await patch(one('@', 'MX'), { records: ['5 mx.provider.example'] }).expect(202);
    expect(w.fake.callsTo('dns', 'PUT').at(-1)!.body).toEqual({
      records: ['5 mx.provider.example.'],
    });
    expect(await auditOf(created.id)).toEqual([
      'dns_records.create',
      'dns_records.update',
      'dns_records.update',
    ]);
  });

  it('validates an update against the path type, and answers 404 for a record set that is not there', async () => {
    const before = dnsCalls();
    const wrong = await patch(one('edit', 'A'), { records: ['not-an-address'] }).expect(422);
    expect(wrong.body.code).toBe('validation_failed');
    expect(fields(wrong)).toEqual(['records']);
    expect(fields(await patch(one('edit', 'A'), {}).expect(422))).toEqual(['records']);
    expect(fields(await patch(one('edit', 'SOA'), { ttl: 60 }).expect(422))).toEqual(['type']);
    expect(dnsCalls()).toBe(before);
    expect((await patch(one('missing', 'A'), { ttl: 60 }).expect(404)).body.code).toBe('not_found');
    await patch(one('edit', 'AAAA'), { ttl: 60 }).expect(404);
    await patch(one('edit.example.org.', 'A'), { ttl: 60 }).expect(404);
  });

  it('matches a wildcard name exactly, though Designate reads * in a filter as a wildcard', async () => {
    await post(records(), { name: 'x.wild', type: 'TXT', records: ['"x"'] }).expect(202);
    await post(records(), { name: '*.wild', type: 'TXT', records: ['"any"'] }).expect(202);
    const res = await patch(one('*.wild', 'TXT'), { records: ['"star"'] }).expect(202);
    expect(res.body.data).toMatchObject({ name: `*.wild.${zone.name}`, records: ['"star"'] });
  });

  it('deletes a record set by name and type (202, action DELETE), audited', async () => {
    const created = (
      await post(records(), { name: 'gone', type: 'TXT', records: ['"bye"'] }).expect(202)
    ).body.data;
    const res = await del(one('gone', 'TXT')).expect(202);
    expect(res.body.data).toMatchObject({ id: created.id, action: 'DELETE' });
    expect(w.fake.callsTo('dns', 'DELETE').at(-1)!.path).toBe(
      `/v2/zones/${zone.id}/recordsets/${created.id}`,
    );
    await settle();
    await del(one('gone', 'TXT')).expect(404);
    expect(await auditOf(created.id)).toEqual(['dns_records.create', 'dns_records.delete']);
  });
});
