import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FAKE_IMAGES } from '@platform/testing';
import { DataSource } from 'typeorm';
import { bearer } from '../support/identity.js';
import { type CloudWorld, createCloudWorld } from './support.js';

describe('cloud servers, images and flavors over OpenStack', () => {
  let w: CloudWorld;
  const image = FAKE_IMAGES[0].id;
  const serverBody = (extra: Record<string, unknown> = {}) => ({
    name: 'web-1',
    flavorRef: 'm1.small',
    imageRef: image,
    networks: [],
    ...extra,
  });
  const get = (path: string, jwt = w.owner.jwt) => w.t.request().get(path).set(bearer(jwt));
  const post = (path: string, body: unknown, jwt = w.owner.jwt) =>
    w.t
      .request()
      .post(path)
      .set(bearer(jwt))
      .send(body as object);

  beforeAll(async () => {
    w = await createCloudWorld();
  });
  afterAll(async () => {
    await w?.close();
  });

  it('provisions one Keystone project per platform project on first use, then creates a server in BUILD (202) that becomes ACTIVE', async () => {
    const created = await post(`/cloud/servers?project_id=${w.projectId}`, serverBody()).expect(
      202,
    );
    expect(created.body.metadata.project_id).toBe(w.projectId);
    expect(created.body.data).toMatchObject({
      name: 'web-1',
      status: 'BUILD',
      image: { id: image },
    });
    const keystoneId = w.keystoneProjectOf(w.projectId)!;
    expect(keystoneId).toBeDefined();
    expect(w.fake.keystone.projects.get(keystoneId)).toMatchObject({
      name: `platform-${w.projectId}`,
      domain_id: 'default',
    });
    // The service user gave itself the member role there.
    expect([
      ...(w.fake.keystone.assignments.get(`${keystoneId}:${w.fake.keystone.user.id}`) ?? []),
    ]).toEqual([w.fake.keystone.roles.get('member')]);
    // Forwarded as {"server": {...}} without project_id, to that project only.
    const sent = w.fake.callsTo('compute', 'POST').at(-1)!;
    expect(sent.projectId).toBe(keystoneId);
    expect(sent.body).toEqual({ server: serverBody() });

    const id = created.body.data.id as string;
    await new Promise((resolve) => setTimeout(resolve, w.fake.serverBuildMs + 10));
    const shown = await get(`/cloud/servers/${id}?project_id=${w.projectId}`).expect(200);
    expect(shown.body.data).toMatchObject({ id, status: 'ACTIVE' });
    const listed = await get(`/cloud/servers?project_id=${w.projectId}`).expect(200);
    expect(listed.body.metadata.count).toBe(1);
    expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual([id]);
  });

  it('takes project_id from the body of a create, and answers 422 without one anywhere', async () => {
    await post('/cloud/servers', {
      ...serverBody({ name: 'from-body' }),
      project_id: w.projectId,
    }).expect(202);
    const missing = await get('/cloud/servers').expect(422);
    expect(missing.body).toMatchObject({
      code: 'validation_failed',
      details: { fields: [{ field: 'project_id' }] },
    });
    await w.t.request().get('/cloud/servers').expect(401);
  });

  it('validates the body before calling upstream (422 naming the field)', async () => {
    const before = w.fake.callsTo('compute', 'POST').length;
    const res = await post(`/cloud/servers?project_id=${w.projectId}`, {
      name: 'x',
      imageRef: image,
      networks: [],
    }).expect(422);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.fields.map((f: { field: string }) => f.field)).toEqual(['flavorRef']);
    const badNet = await post(
      `/cloud/servers?project_id=${w.projectId}`,
      serverBody({ networks: [{ uuid: 'nope' }] }),
    ).expect(422);
    expect(badNet.body.details.fields.map((f: { field: string }) => f.field)).toEqual([
      'networks.0.uuid',
    ]);
    expect(w.fake.callsTo('compute', 'POST')).toHaveLength(before);
  });

  it('passes what the provider refuses as 422 upstream_rejected with its message', async () => {
    const res = await post(
      `/cloud/servers?project_id=${w.projectId}`,
      serverBody({ flavorRef: 'm9.huge' }),
    ).expect(422);
    expect(res.body).toMatchObject({
      code: 'upstream_rejected',
      retryable: false,
      details: {
        provider: 'openstack',
        upstream_status: 400,
        message: 'Flavor m9.huge could not be found.',
      },
    });
  });

  it('keeps tenants apart: another project (even of the same organization) answers 404 for the id', async () => {
    const created = await post(
      `/cloud/servers?project_id=${w.projectId}`,
      serverBody({ name: 'mine' }),
    ).expect(202);
    const id = created.body.data.id as string;
    const other = await get(`/cloud/servers/${id}?project_id=${w.otherProjectId}`).expect(404);
    expect(other.body.code).toBe('not_found');
    await w.t
      .request()
      .delete(`/cloud/servers/${id}?project_id=${w.otherProjectId}`)
      .set(bearer(w.owner.jwt))
      .expect(404);
    expect(
      (await get(`/cloud/servers?project_id=${w.otherProjectId}`).expect(200)).body.data,
    ).toEqual([]);
    // Another organization's member does not even see the project.
    await get(`/cloud/servers?project_id=${w.projectId}`, w.stranger.jwt).expect(404);
    expect(w.keystoneProjectOf(w.otherProjectId)).not.toBe(w.keystoneProjectOf(w.projectId));
  });

  it('Axis A: a viewer reads but neither creates nor deletes; a developer creates and deletes', async () => {
    await get(`/cloud/servers?project_id=${w.projectId}`, w.viewer.jwt).expect(200);
    const refused = await post(
      `/cloud/servers?project_id=${w.projectId}`,
      serverBody(),
      w.viewer.jwt,
    ).expect(403);
    expect(refused.body.code).toBe('forbidden');
    const created = await post(
      `/cloud/servers?project_id=${w.projectId}`,
      serverBody({ name: 'dev' }),
      w.developer.jwt,
    ).expect(202);
    const id = created.body.data.id as string;
    await w.t
      .request()
      .delete(`/cloud/servers/${id}?project_id=${w.projectId}`)
      .set(bearer(w.viewer.jwt))
      .expect(403);
    await w.t
      .request()
      .delete(`/cloud/servers/${id}?project_id=${w.projectId}`)
      .set(bearer(w.developer.jwt))
      .expect(204);
    await get(`/cloud/servers/${id}?project_id=${w.projectId}`).expect(404);
  });

  it('Axis B: creating a server needs the server kind Available; reading does not', async () => {
    const refused = await post(`/cloud/servers?project_id=${w.bareProjectId}`, serverBody()).expect(
      403,
    );
    expect(refused.body.code).toBe('openstack_capability_not_enabled');
    await get(`/cloud/servers?project_id=${w.bareProjectId}`).expect(200);
    await w.grant(w.bareProjectId, 'openstack', ['volume']);
    await post(`/cloud/servers?project_id=${w.bareProjectId}`, serverBody()).expect(403);
  });

  it('audits creates and deletes as servers.create / servers.delete', async () => {
    const created = await post(
      `/cloud/servers?project_id=${w.projectId}`,
      serverBody({ name: 'audited' }),
    ).expect(202);
    const id = created.body.data.id as string;
    await w.t
      .request()
      .delete(`/cloud/servers/${id}?project_id=${w.projectId}`)
      .set(bearer(w.owner.jwt))
      .expect(204);
    const rows: Array<{
      action: string;
      target_id: string;
      project_id: string;
      actor_account_id: string;
    }> = await w.t
      .get(DataSource)
      .query(
        `SELECT action, target_id, project_id, actor_account_id FROM audit_log WHERE target_id = $1 ORDER BY created_at, action DESC`,
        [id],
      );
    expect(rows.map((r) => r.action).sort()).toEqual(['servers.create', 'servers.delete']);
    expect(
      rows.every((r) => r.project_id === w.projectId && r.actor_account_id === w.owner.accountId),
    ).toBe(true);
  });

  it('lists images (Glance) and flavors (Nova)', async () => {
    const images = await get(`/cloud/images?project_id=${w.projectId}`).expect(200);
    expect(images.body.data.map((i: { id: string }) => i.id)).toEqual(FAKE_IMAGES.map((i) => i.id));
    const flavors = await get(`/cloud/flavors?project_id=${w.projectId}`).expect(200);
    expect(flavors.body.data.map((f: { id: string }) => f.id)).toEqual(['m1.small', 'm1.medium']);
  });
});
