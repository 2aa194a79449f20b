import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { Controller, Get, Module, Post } from '@nestjs/common';
import { CapabilitiesModule, RequiresCapability } from '@platform/capabilities';
import { Authenticated } from '@platform/identity';
import { createApiTestApp } from '../support/api-app.js';
import { seedAccount, seedMember } from '../support/factories.js';
import { bearer, login, mintToken, type TestAccount } from '../support/identity.js';

/** A route of the kind the alerting module declares: Axis A, then the alerts capability. */
@Controller('projects/:project_id/capability-probe')
class AlertsProbeController {
  @Get()
  @Authenticated({ scope: 'project', permission: 'alerts:read' })
  @RequiresCapability('alerts')
  read() {
    return { ok: true };
  }

  @Post()
  @Authenticated({ scope: 'project', permission: 'alerts:create' })
  @RequiresCapability('alerts')
  write() {
    return { ok: true };
  }
}

@Module({ imports: [CapabilitiesModule], controllers: [AlertsProbeController] })
class AlertsProbeModule {}

describe('capabilities (Axis B)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let developer: TestAccount;
  let viewer: TestAccount;
  let stranger: TestAccount;
  let platformJwt: string;
  let projectId: string;
  let org: string;
  const platform = { login: 'root@platform.example', password: 'platform admin password 1' };

  const grants = () =>
    t
      .request()
      .get(`/organizations/${org}/projects/${projectId}/feature-grants`)
      .set(bearer(owner.jwt))
      .expect(200)
      .then((res) => res.body.data as Array<Record<string, unknown>>);
  const grantOf = async (key: string) => (await grants()).find((g) => g.feature_key === key)!;
  // Each Limit change happens a minute after the last, so notifications have an order.
  const setLimit = (kinds: string[] | null, key = 'apps', jwt = platformJwt) => {
    t.clock.advance({ minutes: 1 });
    return t
      .request()
      .put(`/admin/organizations/${org}/features/${key}`)
      .set(bearer(jwt))
      .send({ ceiling_configuration: kinds === null ? null : { allowed_kinds: kinds } });
  };
  const setGrant = (key: string, kinds: string[] | null, jwt = owner.jwt) =>
    t
      .request()
      .put(`/organizations/${org}/projects/${projectId}/feature-grants/${key}`)
      .set(bearer(jwt))
      .send({ approved_configuration: { allowed_kinds: kinds } });
  const appKinds = async () =>
    (await t.request().get(`/projects/${projectId}`).set(bearer(owner.jwt)).expect(200)).body.data
      .effective_app_kinds as string[];
  const notifications = async (account: TestAccount, category: string) =>
    (
      (await t.request().get('/notifications?limit=100').set(bearer(account.jwt)).expect(200)).body
        .data as Array<Record<string, unknown>>
    ).filter((n) => n.category === category);
  const request = (body: Record<string, unknown>, jwt = developer.jwt) =>
    t.request().post(`/projects/${projectId}/feature_requests`).set(bearer(jwt)).send(body);
  const decide = (id: string, verb: 'approve' | 'reject', jwt: string, body = {}) =>
    t
      .request()
      .post(`/projects/${projectId}/feature_requests/${id}/${verb}`)
      .set(bearer(jwt))
      .send(body);

  beforeAll(async () => {
    t = await createApiTestApp({
      withWorker: true,
      config: { platformAdmin: platform },
      imports: [AlertsProbeModule],
    });
    owner = await seedAccount(t, 'owner@example.com', 'Owner Org');
    org = owner.organizationId;
    developer = await seedMember(t, owner, 'dev@example.com', 'developer');
    viewer = await seedMember(t, owner, 'viewer@example.com', 'viewer');
    stranger = await seedAccount(t, 'stranger@example.com', 'Stranger Org');
    platformJwt = await login(t, platform.login, platform.password);
    const project = await t
      .request()
      .post(`/organizations/${org}/projects`)
      .set(bearer(owner.jwt))
      .send({ name: 'production' })
      .expect(201);
    projectId = project.body.data.id;
  });

  afterAll(async () => {
    await t.close();
  });

  describe('catalog and Limit', () => {
    it('lists every feature with tier, billing and kinds; a new organization is unbounded', async () => {
      const res = await t
        .request()
        .get(`/organizations/${org}/features`)
        .set(bearer(developer.jwt))
        .expect(200);
      const byKey: Record<string, Record<string, unknown>> = Object.fromEntries(
        (res.body.data as Array<Record<string, unknown>>).map((f) => [f.key, f]),
      );
      expect(Object.keys(byKey)).toEqual([
        'apps',
        'dns',
        'object_storage',
        'kubernetes',
        'openstack',
        'alerts',
      ]);
      expect(
        Object.values(byKey).map((f) => [f.key, f.provisioning_tier, f.ceiling_configuration]),
      ).toEqual([
        ['apps', 'self_service', null],
        ['dns', 'self_service', null],
        ['object_storage', 'self_service', null],
        ['kubernetes', 'provisioned', null],
        ['openstack', 'provisioned', null],
        ['alerts', 'self_service', null],
      ]);
      expect(byKey.object_storage.billed).toBe(true);
      expect(byKey.dns.billed).toBe(false);
      expect(byKey.apps.available_kinds).toEqual([
        'wordpress',
        'nextcloud',
        'static_site',
        'container',
      ]);
    });

    it('shows one feature, 404 for an unknown key or another organization', async () => {
      const res = await t
        .request()
        .get(`/organizations/${org}/features/object_storage`)
        .set(bearer(owner.jwt))
        .expect(200);
      expect(res.body.metadata.organization_id).toBe(org);
      expect(res.body.data).toEqual({
        key: 'object_storage',
        name: 'Object Storage',
        provisioning_tier: 'self_service',
        billed: true,
        available_kinds: ['user', 'bucket'],
        ceiling_configuration: null,
      });
      const unknown = await t
        .request()
        .get(`/organizations/${org}/features/teleport`)
        .set(bearer(owner.jwt))
        .expect(404);
      expect(unknown.body.code).toBe('not_found');
      await t
        .request()
        .get(`/organizations/${org}/features/apps`)
        .set(bearer(stranger.jwt))
        .expect(404);
    });

    it('lets only platform admins set a Limit', async () => {
      const res = await setLimit(['wordpress'], 'apps', owner.jwt).expect(403);
      expect(res.body).toMatchObject({ code: 'forbidden', source_service: 'identity' });
      expect((await setLimit(['wordpress'], 'apps', developer.jwt).expect(403)).body.code).toBe(
        'forbidden',
      );
      const detail = await t
        .request()
        .get(`/organizations/${org}/features/apps`)
        .set(bearer(owner.jwt))
        .expect(200);
      expect(detail.body.data.ceiling_configuration).toBeNull();
    });

    it('refuses unknown kinds and a missing configuration with 422, changing nothing', async () => {
      const unknown = await setLimit(['wordpress', 'mainframe']).expect(422);
      expect(unknown.body.code).toBe('validation_failed');
      expect(unknown.body.details.fields[0].field).toBe('ceiling_configuration.allowed_kinds');
      expect(unknown.body.message).toContain('mainframe');
      const missing = await t
        .request()
        .put(`/admin/organizations/${org}/features/apps`)
        .set(bearer(platformJwt))
        .send({})
        .expect(422);
      expect(missing.body.code).toBe('validation_failed');
      const notList = await t
        .request()
        .put(`/admin/organizations/${org}/features/apps`)
        .set(bearer(platformJwt))
        .send({ ceiling_configuration: { allowed_kinds: 'wordpress' } })
        .expect(422);
      expect(notList.body.details.fields[0].field).toBe('ceiling_configuration.allowed_kinds');
      expect((await setLimit(['wordpress'], 'warp-drive').expect(404)).body.code).toBe('not_found');
      expect((await grantOf('apps')).ceiling_configuration).toBeNull();
    });
  });

  describe('Grant and Available', () => {
    it('starts with nothing granted and no app kinds', async () => {
      expect(await grantOf('apps')).toMatchObject({
        feature_key: 'apps',
        provisioning_tier: 'self_service',
        approved_configuration: null,
        ceiling_configuration: null,
        effective_allowed_kinds: [],
      });
      expect(await appKinds()).toEqual([]);
    });

    it('grants within the Limit and makes the kinds Available at once', async () => {
      const limit = await setLimit(['wordpress', 'nextcloud', 'static_site']).expect(200);
      expect(limit.body.data.ceiling_configuration).toEqual({
        allowed_kinds: ['wordpress', 'nextcloud', 'static_site'],
      });
      const res = await setGrant('apps', ['nextcloud', 'wordpress']).expect(200);
      expect(res.body.data).toMatchObject({
        feature_key: 'apps',
        approved_configuration: { allowed_kinds: ['wordpress', 'nextcloud'] },
        ceiling_configuration: { allowed_kinds: ['wordpress', 'nextcloud', 'static_site'] },
        effective_allowed_kinds: ['wordpress', 'nextcloud'],
      });
      expect(await appKinds()).toEqual(['wordpress', 'nextcloud']);
    });

    it('refuses a Grant beyond the Limit with 422 exceeds_ceiling and leaves the project unchanged', async () => {
      const res = await setGrant('apps', ['wordpress', 'container']).expect(422);
      expect(res.body).toMatchObject({
        code: 'exceeds_ceiling',
        source_service: 'capabilities',
        retryable: false,
      });
      expect(res.body.details.kinds).toEqual(['container']);
      expect(await grantOf('apps')).toMatchObject({
        approved_configuration: { allowed_kinds: ['wordpress', 'nextcloud'] },
        effective_allowed_kinds: ['wordpress', 'nextcloud'],
      });
      expect(await appKinds()).toEqual(['wordpress', 'nextcloud']);
    });

    it('needs an org admin to grant (Axis A) and refuses kinds the feature does not know', async () => {
      expect((await setGrant('apps', ['wordpress'], developer.jwt).expect(403)).body.code).toBe(
        'forbidden',
      );
      const unknown = await setGrant('apps', ['cobol']).expect(422);
      expect(unknown.body.code).toBe('validation_failed');
      expect(unknown.body.details.fields[0].field).toBe('approved_configuration.allowed_kinds');
      const missing = await t
        .request()
        .put(`/organizations/${org}/projects/${projectId}/feature-grants/apps`)
        .set(bearer(owner.jwt))
        .send({ allowed_kinds: ['wordpress'] })
        .expect(422);
      expect(missing.body.details.fields[0].field).toBe('approved_configuration');
      expect((await grantOf('apps')).approved_configuration).toEqual({
        allowed_kinds: ['wordpress', 'nextcloud'],
      });
    });

    it('narrowing the Limit shrinks Available at once, keeps the Grant and tells org admins', async () => {
      await setLimit(['wordpress', 'static_site']).expect(200);
      expect(await grantOf('apps')).toMatchObject({
        approved_configuration: { allowed_kinds: ['wordpress', 'nextcloud'] },
        ceiling_configuration: { allowed_kinds: ['wordpress', 'static_site'] },
        effective_allowed_kinds: ['wordpress'],
      });
      expect(await appKinds()).toEqual(['wordpress']);

      const [note] = await notifications(owner, 'capability_update');
      expect(note).toMatchObject({
        event_type: 'limit_narrowed',
        organization_id: org,
        payload: {
          feature_key: 'apps',
          ceiling_configuration: { allowed_kinds: ['wordpress', 'static_site'] },
          previous_ceiling_configuration: {
            allowed_kinds: ['wordpress', 'nextcloud', 'static_site'],
          },
          removed_kinds: ['nextcloud'],
          added_kinds: [],
        },
      });
      expect(await notifications(developer, 'capability_update')).toEqual([]);
    });

    it('widening the Limit again restores what the Grant allowed', async () => {
      await setLimit(null).expect(200);
      expect(await grantOf('apps')).toMatchObject({
        ceiling_configuration: null,
        effective_allowed_kinds: ['wordpress', 'nextcloud'],
      });
      expect(await appKinds()).toEqual(['wordpress', 'nextcloud']);
      const [latest] = await notifications(owner, 'capability_update');
      expect(latest).toMatchObject({ event_type: 'limit_widened' });
    });

    it('an open Grant follows the Limit, and is unbounded (null) while the Limit is', async () => {
      await setGrant('dns', null).expect(200);
      expect((await grantOf('dns')).effective_allowed_kinds).toBeNull();
      await setLimit(['zone'], 'dns').expect(200);
      expect((await grantOf('dns')).effective_allowed_kinds).toEqual(['zone']);
    });

    it('provisioned features are granted by platform admins only', async () => {
      const res = await setGrant('kubernetes', ['cluster']).expect(403);
      expect(res.body.code).toBe('platform_admin_required');
      expect((await grantOf('kubernetes')).approved_configuration).toBeNull();
      await setGrant('kubernetes', ['cluster'], platformJwt).expect(200);
      expect((await grantOf('kubernetes')).effective_allowed_kinds).toEqual(['cluster']);
    });

    it('revokes a Grant (204) so nothing of the feature stays Available', async () => {
      await t
        .request()
        .delete(`/organizations/${org}/projects/${projectId}/feature-grants/dns`)
        .set(bearer(owner.jwt))
        .expect(204);
      expect(await grantOf('dns')).toMatchObject({
        approved_configuration: null,
        effective_allowed_kinds: [],
      });
    });

    it("answers 404 for a project of another organization under this organization's path", async () => {
      const other = await t
        .request()
        .post(`/organizations/${stranger.organizationId}/projects`)
        .set(bearer(stranger.jwt))
        .send({ name: 'theirs' })
        .expect(201);
      const res = await t
        .request()
        .put(`/organizations/${org}/projects/${other.body.data.id}/feature-grants/apps`)
        .set(bearer(owner.jwt))
        .send({ approved_configuration: { allowed_kinds: ['wordpress'] } })
        .expect(404);
      expect(res.body.code).toBe('not_found');
      await t
        .request()
        .get(`/organizations/${org}/projects/${other.body.data.id}/feature-grants`)
        .set(bearer(owner.jwt))
        .expect(404);
    });
  });

  describe('the capability guard', () => {
    const probe = (method: 'get' | 'post', jwt: string) =>
      t.request()[method](`/projects/${projectId}/capability-probe`).set(bearer(jwt)).send({});

    it('answers 403 alerts_capability_not_enabled while the project lacks alerts', async () => {
      const res = await probe('get', owner.jwt).expect(403);
      expect(res.body).toMatchObject({
        code: 'alerts_capability_not_enabled',
        source_service: 'capabilities',
        retryable: false,
      });
      expect((await probe('post', platformJwt).expect(403)).body.code).toBe(
        'alerts_capability_not_enabled',
      );
    });

    it('passes once granted, and both axes must pass: a viewer still cannot write', async () => {
      await setGrant('alerts', null).expect(200);
      expect((await probe('get', viewer.jwt).expect(200)).body.data).toEqual({ ok: true });
      expect((await probe('post', viewer.jwt).expect(403)).body.code).toBe('forbidden');
      await probe('post', developer.jwt).expect(201);
      const token = await mintToken(t, developer.jwt, ['alerts:read']);
      await probe('get', token).expect(200);
      expect((await probe('post', token).expect(403)).body.code).toBe('insufficient_scope');
    });

    it('checks Axis A first: another organization learns nothing (404)', async () => {
      expect((await probe('get', stranger.jwt).expect(404)).body.code).toBe('not_found');
    });

    it('recomputes Available on every request: a narrowed Limit closes the route at once', async () => {
      await setLimit([], 'alerts').expect(200);
      expect((await probe('get', developer.jwt).expect(403)).body.code).toBe(
        'alerts_capability_not_enabled',
      );
      await setLimit(null, 'alerts').expect(200);
      await probe('get', developer.jwt).expect(200);
    });
  });

  describe('feature requests', () => {
    it('any member may ask, for provisioned features too; requests are stored pending', async () => {
      const res = await request({ feature_key: 'openstack', message: 'for our VMs' }, viewer.jwt);
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({
        project_id: projectId,
        feature_key: 'openstack',
        status: 'pending',
        message: 'for our VMs',
        requested_configuration: { allowed_kinds: null },
        requested_by: { id: viewer.accountId },
        decided_by: null,
      });
      const list = await t
        .request()
        .get(`/projects/${projectId}/feature_requests?status=pending`)
        .set(bearer(viewer.jwt))
        .expect(200);
      expect((list.body.data as Array<{ id: string }>).map((r) => r.id)).toContain(
        res.body.data.id,
      );
      expect(list.body.metadata.project_id).toBe(projectId);
      const bogus = await t
        .request()
        .get(`/projects/${projectId}/feature_requests?status=bogus`)
        .set(bearer(viewer.jwt))
        .expect(422);
      expect(bogus.body).toMatchObject({
        code: 'validation_failed',
        source_operation: 'featureRequests.list',
        details: {
          fields: [
            {
              field: 'status',
              messages: ['status must be one of the following values: pending, approved, rejected'],
            },
          ],
        },
      });
      const asked = await notifications(owner, 'feature_request');
      expect(asked[0]).toMatchObject({
        event_type: 'requested',
        payload: { request_id: res.body.data.id, feature_key: 'openstack' },
      });
    });

    it('refuses an unknown feature or kind with 422 and stores nothing', async () => {
      const before = await t
        .request()
        .get(`/projects/${projectId}/feature_requests`)
        .set(bearer(developer.jwt))
        .expect(200);
      const unknown = await request({ feature_key: 'time_travel' }).expect(422);
      expect(unknown.body.code).toBe('validation_failed');
      expect(unknown.body.details.fields[0].field).toBe('feature_key');
      const kind = await request({
        feature_key: 'apps',
        requested_configuration: { allowed_kinds: ['mainframe'] },
      }).expect(422);
      expect(kind.body.details.fields[0].field).toBe('requested_configuration.allowed_kinds');
      expect((await request({}).expect(422)).body.code).toBe('validation_failed');
      const after = await t
        .request()
        .get(`/projects/${projectId}/feature_requests`)
        .set(bearer(developer.jwt))
        .expect(200);
      expect(after.body.metadata.count).toBe(before.body.metadata.count);
    });

    it('an org admin approves a self-service request within the Limit, effective at once, and the requester and org admins hear of it', async () => {
      await t
        .request()
        .put(`/organizations/${org}/projects/${projectId}/feature-grants/object_storage`)
        .set(bearer(owner.jwt))
        .send({ approved_configuration: { allowed_kinds: [] } })
        .expect(200);
      const created = await request({
        feature_key: 'object_storage',
        requested_configuration: { allowed_kinds: ['bucket'] },
      }).expect(201);
      const id = created.body.data.id as string;
      const approved = await decide(id, 'approve', owner.jwt).expect(200);
      expect(approved.body.data).toMatchObject({
        id,
        status: 'approved',
        decided_by: { id: owner.accountId },
      });
      expect((await grantOf('object_storage')).effective_allowed_kinds).toEqual(['bucket']);

      const expected = {
        feature_key: 'object_storage',
        project_id: projectId,
        project_name: 'production',
        request_id: id,
        actor: { id: owner.accountId, name: 'owner' },
      };
      for (const account of [developer, owner]) {
        const note = (await notifications(account, 'feature_request')).find(
          (n) => n.event_type === 'approved',
        );
        expect(note).toMatchObject({
          category: 'feature_request',
          event_type: 'approved',
          organization_id: org,
          organization_name: 'Owner Org',
        });
        expect(note!.payload).toEqual(expected);
      }
      expect(
        (await notifications(viewer, 'feature_request')).filter((n) => n.event_type === 'approved'),
      ).toEqual([]);

      const again = await decide(id, 'approve', owner.jwt).expect(409);
      expect(again.body.code).toBe('request_not_pending');
    });

    it('an org admin cannot approve a provisioned-tier request; a platform admin can', async () => {
      const created = await request({ feature_key: 'openstack' }).expect(201);
      const id = created.body.data.id as string;
      const refused = await decide(id, 'approve', owner.jwt).expect(403);
      expect(refused.body.code).toBe('platform_admin_required');
      expect((await grantOf('openstack')).approved_configuration).toBeNull();
      const pending = await t
        .request()
        .get(`/projects/${projectId}/feature_requests/${id}`)
        .set(bearer(developer.jwt))
        .expect(200);
      expect(pending.body.data.status).toBe('pending');

      await decide(id, 'approve', platformJwt).expect(200);
      expect(await grantOf('openstack')).toMatchObject({
        approved_configuration: { allowed_kinds: null },
        effective_allowed_kinds: null,
      });
    });

    it('an org admin cannot approve beyond the Limit; a platform admin can, widening the Limit', async () => {
      await setLimit(['wordpress', 'nextcloud']).expect(200);
      const created = await request({
        feature_key: 'apps',
        requested_configuration: { allowed_kinds: ['container'] },
      }).expect(201);
      const id = created.body.data.id as string;
      expect((await decide(id, 'approve', owner.jwt).expect(403)).body.code).toBe(
        'platform_admin_required',
      );
      expect(await appKinds()).toEqual(['wordpress', 'nextcloud']);

      await decide(id, 'approve', platformJwt, { note: 'container hosting enabled' }).expect(200);
      expect(await grantOf('apps')).toMatchObject({
        approved_configuration: { allowed_kinds: ['wordpress', 'nextcloud', 'container'] },
        ceiling_configuration: { allowed_kinds: ['wordpress', 'nextcloud', 'container'] },
        effective_allowed_kinds: ['wordpress', 'nextcloud', 'container'],
      });
      expect(await appKinds()).toEqual(['wordpress', 'nextcloud', 'container']);
      const note = (await notifications(developer, 'feature_request')).find(
        (n) => (n.payload as { request_id: string }).request_id === id,
      );
      expect(note!.payload).toEqual({
        feature_key: 'apps',
        project_id: projectId,
        project_name: 'production',
        request_id: id,
        actor: { id: expect.any(String), name: expect.any(String) },
      });
    });

    it('rejects with a reason, telling the requester; members without admin rights cannot decide', async () => {
      const created = await request({ feature_key: 'dns' }).expect(201);
      const id = created.body.data.id as string;
      expect((await decide(id, 'reject', developer.jwt).expect(403)).body.code).toBe('forbidden');
      const rejected = await decide(id, 'reject', owner.jwt, { reason: 'use the shared zone' });
      expect(rejected.status).toBe(200);
      expect(rejected.body.data).toMatchObject({
        status: 'rejected',
        decision_note: 'use the shared zone',
      });
      const note = (await notifications(developer, 'feature_request')).find(
        (n) => n.event_type === 'rejected',
      );
      expect(note!.payload).toMatchObject({ request_id: id, reason: 'use the shared zone' });
      expect((await decide(id, 'approve', owner.jwt).expect(409)).body.code).toBe(
        'request_not_pending',
      );
    });

    it('answers 404 for an unknown request id', async () => {
      const res = await decide('00000000-0000-4000-8000-000000000000', 'approve', owner.jwt);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    });
  });
});
