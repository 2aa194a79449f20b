import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SmtpSink } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import {
  addMember,
  bearer,
  createAccount,
  login,
  mintToken,
  type TestAccount,
  tokenFromMail,
} from '../support/identity.js';

/** The fields a 422 validation_failed answer names. */
const fieldsOf = (res: { body: { details: { fields: Array<{ field: string }> } } }): string[] =>
  res.body.details.fields.map((f) => f.field);

const NO_SUCH_ID = '00000000-0000-4000-8000-000000000000';

interface MembershipBody {
  id: string;
  organization_id: string;
  account_id: string;
  login: string;
  role: string;
  permissions: Record<string, string[]>;
  effective_permissions: Record<string, string[]>;
}

describe('organizations, projects and memberships', () => {
  let t: MailingTestApp;
  let sink: SmtpSink;
  let db: DataSource;
  let n = 0;

  /** A fresh e-mail address per call, so no test picks up another test's mail. */
  const email = (label: string): string => `${label}-${++n}@orgs.example.com`;

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    sink = t.sink;
    db = t.get(DataSource);
  });

  afterAll(async () => {
    await t.close();
  });

  const get = (path: string, jwt: string) => t.request().get(path).set(bearer(jwt));

  const createProject = async (who: TestAccount, name: string): Promise<string> => {
    const res = await t
      .request()
      .post(`/organizations/${who.organizationId}/projects`)
      .set(bearer(who.jwt))
      .send({ name })
      .expect(201);
    return res.body.data.id as string;
  };

  const membershipOf = async (admin: TestAccount, accountId: string): Promise<MembershipBody> => {
    const res = await get(`/memberships?organization_id=${admin.organizationId}`, admin.jwt).expect(
      200,
    );
    const found = (res.body.data as MembershipBody[]).find((m) => m.account_id === accountId);
    expect(found).toBeDefined();
    return found!;
  };

  const count = async (sql: string, parameter: string): Promise<number> =>
    Number((await db.query<Array<{ n: string }>>(sql, [parameter]))[0].n);

  const projectCount = (organizationId: string): Promise<number> =>
    count('SELECT count(*) AS n FROM project WHERE organization_id = $1', organizationId);

  /** Makes `guest` (who has an organization of its own) a member of `host`'s organization. */
  const joinExisting = async (host: TestAccount, guest: TestAccount, role: string) => {
    await t
      .request()
      .post(`/invitations?organization_id=${host.organizationId}`)
      .set(bearer(host.jwt))
      .send({ email: guest.login, role })
      .expect(201);
    const token = await tokenFromMail(sink, guest.login, 'Invitation token');
    const accepted = await t
      .request()
      .patch(`/invite/${token}/accept`)
      .set(bearer(guest.jwt))
      .expect(200);
    expect(accepted.body.data).toMatchObject({
      organization_id: host.organizationId,
      account_id: guest.accountId,
      role,
    });
    return accepted.body.data.membership_id as string;
  };

  describe('GET /organizations', () => {
    it('lists every organization of the caller with its role, account-wide', async () => {
      const ada = await createAccount(t, sink, email('ada'), 'Beta Works');
      const grace = await createAccount(t, sink, email('grace'), 'Alpha Labs');
      await joinExisting(grace, ada, 'developer');

      // No organization_id is needed although ada now has two memberships.
      const res = await get('/organizations', ada.jwt).expect(200);
      expect(res.body.metadata.organization_id).toBeNull();
      expect(res.body.metadata.count).toBe(2);
      expect(res.body.data).toEqual([
        {
          id: grace.organizationId,
          name: 'Alpha Labs',
          role: 'developer',
          created_at: expect.any(String),
        },
        {
          id: ada.organizationId,
          name: 'Beta Works',
          role: 'admin',
          created_at: expect.any(String),
        },
      ]);

      const own = await get('/organizations', grace.jwt).expect(200);
      expect(own.body.data).toEqual([
        expect.objectContaining({ id: grace.organizationId, role: 'admin' }),
      ]);
    });

    it('answers 401 without a token', async () => {
      const res = await t.request().get('/organizations').expect(401);
      expect(res.body.code).toBe('unauthorized');
    });
  });

  describe('projects', () => {
    it('creates, lists and shows projects in the organization envelope', async () => {
      const admin = await createAccount(t, sink, email('projects'));
      const org = admin.organizationId;

      const created = await t
        .request()
        .post(`/organizations/${org}/projects`)
        .set(bearer(admin.jwt))
        .send({ name: '  production  ' })
        .expect(201);
      expect(created.body.metadata.organization_id).toBe(org);
      expect(created.body.data).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        organization_id: org,
        name: 'production',
        created_at: t.clock.now().toISOString(),
      });
      const id = created.body.data.id as string;
      await createProject(admin, 'development');

      const list = await get(`/organizations/${org}/projects`, admin.jwt).expect(200);
      expect(list.body.metadata.organization_id).toBe(org);
      expect(list.body.metadata.count).toBe(2);
      expect((list.body.data as Array<{ name: string }>).map((p) => p.name)).toEqual([
        'development',
        'production',
      ]);

      const shown = await get(`/organizations/${org}/projects/${id}`, admin.jwt).expect(200);
      expect(shown.body.metadata.organization_id).toBe(org);
      expect(shown.body.data).toEqual(created.body.data);

      const byId = await get(`/projects/${id}`, admin.jwt).expect(200);
      expect(byId.body.metadata).toMatchObject({ organization_id: org, project_id: id });
      expect(byId.body.data).toMatchObject({ id, organization_id: org, name: 'production' });
    });

    it('refuses a duplicate name with 422 validation_failed, per organization', async () => {
      const admin = await createAccount(t, sink, email('dupes'));
      const other = await createAccount(t, sink, email('dupes-other'));
      await createProject(admin, 'production');

      for (const name of ['production', ' production ']) {
        const res = await t
          .request()
          .post(`/organizations/${admin.organizationId}/projects`)
          .set(bearer(admin.jwt))
          .send({ name })
          .expect(422);
        expect(res.body.code).toBe('validation_failed');
        expect(res.body.source_service).toBe('identity');
        expect(res.body.details.fields).toEqual([
          { field: 'name', messages: [expect.stringMatching(/taken/)] },
        ]);
      }
      expect(await projectCount(admin.organizationId)).toBe(1);

      // The same name in another organization is fine.
      await createProject(other, 'production');
    });

    it.each([
      ['an empty name', { name: '' }],
      ['a blank name', { name: '   ' }],
      ['no name', {}],
      ['a name that is not a string', { name: 42 }],
      ['a name over 100 characters', { name: 'x'.repeat(101) }],
    ])('refuses %s with 422 validation_failed and creates nothing', async (_label, body) => {
      const admin = await createAccount(t, sink, email('badname'));
      const res = await t
        .request()
        .post(`/organizations/${admin.organizationId}/projects`)
        .set(bearer(admin.jwt))
        .send(body)
        .expect(422);
      expect(res.body.code).toBe('validation_failed');
      expect(fieldsOf(res)).toEqual(['name']);
      expect(await projectCount(admin.organizationId)).toBe(0);
    });

    it('lets a viewer read projects but not create one', async () => {
      const admin = await createAccount(t, sink, email('viewer-admin'));
      const id = await createProject(admin, 'production');
      const viewer = await addMember(t, sink, admin, email('viewer'), 'viewer');
      const org = admin.organizationId;

      const list = await get(`/organizations/${org}/projects`, viewer.jwt).expect(200);
      expect((list.body.data as Array<{ id: string }>).map((p) => p.id)).toEqual([id]);
      await get(`/organizations/${org}/projects/${id}`, viewer.jwt).expect(200);
      await get(`/projects/${id}`, viewer.jwt).expect(200);

      const refused = await t
        .request()
        .post(`/organizations/${org}/projects`)
        .set(bearer(viewer.jwt))
        .send({ name: 'staging' })
        .expect(403);
      expect(refused.body.code).toBe('forbidden');
      expect(refused.body.message).toContain('projects:create');
      expect(await projectCount(org)).toBe(1);
    });

    it('leaves creating projects to org admins: a developer gets 403 forbidden', async () => {
      const admin = await createAccount(t, sink, email('dev-admin'));
      const developer = await addMember(t, sink, admin, email('developer'), 'developer');
      const refused = await t
        .request()
        .post(`/organizations/${admin.organizationId}/projects`)
        .set(bearer(developer.jwt))
        .send({ name: 'staging' })
        .expect(403);
      expect(refused.body.code).toBe('forbidden');
      expect(refused.body.message).toContain('projects:create');
      expect(await projectCount(admin.organizationId)).toBe(0);
      await createProject(admin, 'staging');
    });
  });

  describe('memberships', () => {
    it('lists and shows the memberships of the organization', async () => {
      const admin = await createAccount(t, sink, email('list-admin'));
      const viewer = await addMember(t, sink, admin, email('list-viewer'), 'viewer');

      const res = await get('/memberships', admin.jwt).expect(200);
      expect(res.body.metadata.organization_id).toBe(admin.organizationId);
      expect(res.body.metadata.count).toBe(2);
      const byAccount = new Map(
        (res.body.data as MembershipBody[]).map((m) => [m.account_id, m] as const),
      );
      expect(byAccount.get(admin.accountId)).toMatchObject({
        organization_id: admin.organizationId,
        login: admin.login,
        role: 'admin',
        permissions: {},
      });
      const viewerMembership = byAccount.get(viewer.accountId)!;
      expect(viewerMembership).toMatchObject({ login: viewer.login, role: 'viewer' });
      expect(viewerMembership.effective_permissions).toMatchObject({
        projects: ['read'],
        members: ['read'],
        billing: [],
      });

      // A viewer may read the memberships too.
      const shown = await get(`/memberships/${viewerMembership.id}`, viewer.jwt).expect(200);
      expect(shown.body.metadata.organization_id).toBe(admin.organizationId);
      expect(shown.body.data).toEqual(viewerMembership);
    });

    it('changes the role, which governs the next request', async () => {
      const admin = await createAccount(t, sink, email('role-admin'));
      const member = await addMember(t, sink, admin, email('role-member'), 'viewer');
      const { id } = await membershipOf(admin, member.accountId);
      await mintToken(t, admin.jwt, ['projects:read']);
      const [adminToken] = (await get('/tokens', admin.jwt).expect(200)).body.data as Array<{
        token_id: string;
      }>;
      // A viewer revokes its own tokens only.
      await t
        .request()
        .delete(`/tokens/${adminToken.token_id}`)
        .set(bearer(member.jwt))
        .expect(404);

      const res = await t
        .request()
        .patch(`/memberships/${id}`)
        .set(bearer(admin.jwt))
        .send({ role: 'developer' })
        .expect(200);
      expect(res.body.metadata.organization_id).toBe(admin.organizationId);
      expect(res.body.data).toMatchObject({ id, role: 'developer', permissions: {} });
      expect(res.body.data.effective_permissions).toMatchObject({
        projects: ['read'],
        tokens: ['read', 'create', 'update', 'delete'],
      });

      // A developer revokes anyone's.
      await t
        .request()
        .delete(`/tokens/${adminToken.token_id}`)
        .set(bearer(member.jwt))
        .expect(204);
      expect((await membershipOf(admin, member.accountId)).role).toBe('developer');
    });

    it('stores per-category overrides and shows them in effective_permissions', async () => {
      const admin = await createAccount(t, sink, email('perm-admin'));
      const member = await addMember(t, sink, admin, email('perm-member'), 'viewer');
      const { id } = await membershipOf(admin, member.accountId);

      const res = await t
        .request()
        .patch(`/memberships/${id}`)
        .set(bearer(admin.jwt))
        .send({ permissions: { alerts: ['update', 'read', 'read'], projects: ['read', 'create'] } })
        .expect(200);
      expect(res.body.data.role).toBe('viewer');
      expect(res.body.data.permissions).toEqual({
        alerts: ['update', 'read'],
        projects: ['read', 'create'],
      });
      expect(res.body.data.effective_permissions).toMatchObject({
        alerts: ['read', 'update'],
        projects: ['read', 'create'],
        // Categories without an override keep the role's defaults.
        dns: ['read'],
        billing: [],
      });

      const shown = await get(`/memberships/${id}`, admin.jwt).expect(200);
      expect(shown.body.data).toEqual(res.body.data);

      // The override takes effect: the viewer may now create projects.
      await createProject(member, 'made-by-viewer');

      // An empty list revokes a category entirely.
      const revoked = await t
        .request()
        .patch(`/memberships/${id}`)
        .set(bearer(admin.jwt))
        .send({ permissions: { projects: [] } })
        .expect(200);
      expect(revoked.body.data.permissions).toEqual({ projects: [] });
      expect(revoked.body.data.effective_permissions.alerts).toEqual(['read']);
      const refused = await get(`/organizations/${admin.organizationId}/projects`, member.jwt);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('forbidden');
    });

    it.each([
      ['an unknown category', { permissions: { nope: ['read'] } }, 'permissions.nope'],
      ['an unknown level', { permissions: { alerts: ['read', 'manage'] } }, 'permissions.alerts'],
      ['levels that are not a list', { permissions: { alerts: 'read' } }, 'permissions.alerts'],
      [
        'a bad override next to a valid role',
        { role: 'developer', permissions: { alerts: ['read'], bogus: ['read'] } },
        'permissions.bogus',
      ],
      ['permissions that are not an object', { permissions: ['read'] }, 'permissions'],
      ['an unknown role', { role: 'owner' }, 'role'],
    ])('refuses %s with 422 validation_failed and saves nothing', async (_label, body, field) => {
      const admin = await createAccount(t, sink, email('badperm-admin'));
      const member = await addMember(t, sink, admin, email('badperm-member'), 'viewer');
      const before = await membershipOf(admin, member.accountId);

      const res = await t
        .request()
        .patch(`/memberships/${before.id}`)
        .set(bearer(admin.jwt))
        .send(body)
        .expect(422);
      expect(res.body.code).toBe('validation_failed');
      expect(fieldsOf(res)).toEqual([field]);

      expect(await membershipOf(admin, member.accountId)).toEqual(before);
    });

    it('never demotes or removes the last admin', async () => {
      const admin = await createAccount(t, sink, email('last-admin'));
      const viewer = await addMember(t, sink, admin, email('last-viewer'), 'viewer');
      const own = await membershipOf(admin, admin.accountId);

      const demoted = await t
        .request()
        .patch(`/memberships/${own.id}`)
        .set(bearer(admin.jwt))
        .send({ role: 'developer' })
        .expect(422);
      expect(demoted.body.code).toBe('last_admin');
      expect(demoted.body.source_service).toBe('identity');

      const removed = await t
        .request()
        .delete(`/memberships/${own.id}`)
        .set(bearer(admin.jwt))
        .expect(422);
      expect(removed.body.code).toBe('last_admin');

      expect(await membershipOf(admin, admin.accountId)).toEqual(own);
      const list = await get('/memberships', admin.jwt).expect(200);
      expect(list.body.metadata.count).toBe(2);

      // Removing a non-admin is fine.
      const viewerMembership = await membershipOf(admin, viewer.accountId);
      const gone = await t
        .request()
        .delete(`/memberships/${viewerMembership.id}`)
        .set(bearer(admin.jwt))
        .expect(204);
      expect(gone.text).toBe('');
      await get(`/memberships/${viewerMembership.id}`, admin.jwt).expect(404);
    });

    it('demotes and removes an admin while another admin remains', async () => {
      const first = await createAccount(t, sink, email('first-admin'));
      const second = await addMember(t, sink, first, email('second-admin'), 'admin');
      const firstMembership = await membershipOf(first, first.accountId);
      const secondMembership = await membershipOf(first, second.accountId);

      const demoted = await t
        .request()
        .patch(`/memberships/${firstMembership.id}`)
        .set(bearer(first.jwt))
        .send({ role: 'viewer' })
        .expect(200);
      expect(demoted.body.data.role).toBe('viewer');

      // Now the second is the last admin: it cannot leave, but it can remove the first.
      const refused = await t
        .request()
        .delete(`/memberships/${secondMembership.id}`)
        .set(bearer(second.jwt))
        .expect(422);
      expect(refused.body.code).toBe('last_admin');
      await t
        .request()
        .patch(`/memberships/${firstMembership.id}`)
        .set(bearer(second.jwt))
        .send({ role: 'admin' })
        .expect(200);
      await t
        .request()
        .delete(`/memberships/${firstMembership.id}`)
        .set(bearer(second.jwt))
        .expect(204);

      const list = await get('/memberships', second.jwt).expect(200);
      expect((list.body.data as MembershipBody[]).map((m) => m.account_id)).toEqual([
        second.accountId,
      ]);
      // The removed account no longer reaches the organization.
      const outside = await get(`/memberships?organization_id=${first.organizationId}`, first.jwt);
      expect(outside.status).toBe(404);
      expect(outside.body.code).toBe('not_found');
    });

    it('refuses changes by a viewer with 403 forbidden', async () => {
      const admin = await createAccount(t, sink, email('forbid-admin'));
      const viewer = await addMember(t, sink, admin, email('forbid-viewer'), 'viewer');
      const own = await membershipOf(admin, viewer.accountId);
      const adminMembership = await membershipOf(admin, admin.accountId);

      for (const [target, body] of [
        [own.id, { role: 'admin' }],
        [own.id, { permissions: { members: ['read', 'update'] } }],
        [adminMembership.id, { role: 'viewer' }],
      ] as const) {
        const res = await t
          .request()
          .patch(`/memberships/${target}`)
          .set(bearer(viewer.jwt))
          .send(body)
          .expect(403);
        expect(res.body.code).toBe('forbidden');
      }
      const removal = await t
        .request()
        .delete(`/memberships/${adminMembership.id}`)
        .set(bearer(viewer.jwt))
        .expect(403);
      expect(removal.body.code).toBe('forbidden');

      expect(await membershipOf(admin, viewer.accountId)).toEqual(own);
      expect(await membershipOf(admin, admin.accountId)).toEqual(adminMembership);
    });
  });

  describe('accounts with several memberships', () => {
    it('must name the organization; GET /accounts/me reports the resolved one', async () => {
      const ada = await createAccount(t, sink, email('multi-ada'), 'Ada Org');
      const grace = await createAccount(t, sink, email('multi-grace'), 'Grace Org');

      // With one membership the organization is implied.
      const single = await get('/accounts/me', ada.jwt).expect(200);
      expect(single.body.metadata.organization_id).toBeNull();
      expect(single.body.data.current_organization_id).toBe(ada.organizationId);
      await get('/memberships', ada.jwt).expect(200);

      // Invited by its login, the existing account gains the membership at once.
      const membershipId = await joinExisting(grace, ada, 'developer');

      const ambiguous = await get('/memberships', ada.jwt).expect(403);
      expect(ambiguous.body.code).toBe('organization_required');
      expect(ambiguous.body.source_service).toBe('identity');
      const noProject = await t
        .request()
        .post('/invitations')
        .set(bearer(ada.jwt))
        .send({ email: email('nobody'), role: 'viewer' })
        .expect(403);
      expect(noProject.body.code).toBe('organization_required');

      const inGrace = await get(`/memberships?organization_id=${grace.organizationId}`, ada.jwt);
      expect(inGrace.status).toBe(200);
      expect(inGrace.body.metadata.organization_id).toBe(grace.organizationId);
      expect(
        (inGrace.body.data as MembershipBody[]).map((m) => [m.account_id, m.role]).sort(),
      ).toEqual(
        [
          [ada.accountId, 'developer'],
          [grace.accountId, 'admin'],
        ].sort(),
      );
      expect(
        (inGrace.body.data as MembershipBody[]).find((m) => m.account_id === ada.accountId)?.id,
      ).toBe(membershipId);
      const inAda = await get(`/memberships?organization_id=${ada.organizationId}`, ada.jwt);
      expect(inAda.status).toBe(200);
      expect((inAda.body.data as MembershipBody[]).map((m) => m.account_id)).toEqual([
        ada.accountId,
      ]);

      // A path organization needs no query parameter.
      await get(`/organizations/${grace.organizationId}/projects`, ada.jwt).expect(200);

      const me = await get('/accounts/me', ada.jwt).expect(200);
      expect(me.body.data.current_organization_id).toBeNull();
      expect(
        (me.body.data.memberships as Array<{ organization_id: string; role: string }>).map((m) => [
          m.organization_id,
          m.role,
        ]),
      ).toEqual([
        [ada.organizationId, 'admin'],
        [grace.organizationId, 'developer'],
      ]);
      expect(me.body.data.memberships[1]).toMatchObject({
        id: membershipId,
        organization_name: 'Grace Org',
        permissions: {},
      });
      const scoped = await get(`/accounts/me?organization_id=${grace.organizationId}`, ada.jwt);
      expect(scoped.status).toBe(200);
      expect(scoped.body.data.current_organization_id).toBe(grace.organizationId);
      expect(scoped.body.data.memberships).toHaveLength(2);
      // An empty organization_id counts as absent, as on every route.
      const empty = await get('/accounts/me?organization_id=', ada.jwt).expect(200);
      expect(empty.body.data.current_organization_id).toBeNull();
      const malformed = await get('/accounts/me?organization_id=not-a-uuid', ada.jwt).expect(422);
      expect(malformed.body).toMatchObject({
        code: 'validation_failed',
        message: 'Validation failed: organization_id must be a UUID',
        source_operation: 'accounts.me',
        details: {
          fields: [{ field: 'organization_id', messages: ['organization_id must be a UUID'] }],
        },
      });

      // Grace still has a single membership.
      const graceMe = await get('/accounts/me', grace.jwt).expect(200);
      expect(graceMe.body.data.current_organization_id).toBe(grace.organizationId);
      expect(graceMe.body.data.memberships).toHaveLength(1);

      // A new session of ada sees the same.
      const fresh = await login(t, ada.login);
      await get('/memberships', fresh).expect(403);
    });
  });

  describe('tenancy', () => {
    let ada: TestAccount;
    let grace: TestAccount;
    let adaProject: string;
    let graceProject: string;
    let graceMembership: MembershipBody;

    beforeAll(async () => {
      ada = await createAccount(t, sink, email('tenant-ada'));
      grace = await createAccount(t, sink, email('tenant-grace'));
      adaProject = await createProject(ada, 'ada-project');
      graceProject = await createProject(grace, 'grace-project');
      graceMembership = await membershipOf(grace, grace.accountId);
    });

    const expectNotFound = async (res: { status: number; body: { code: string } }) => {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    };

    it("hides another organization's projects", async () => {
      const a = ada.organizationId;
      const g = grace.organizationId;
      await expectNotFound(await get(`/organizations/${a}/projects/${graceProject}`, ada.jwt));
      await expectNotFound(await get(`/organizations/${g}/projects/${graceProject}`, ada.jwt));
      await expectNotFound(await get(`/organizations/${g}/projects`, ada.jwt));
      await expectNotFound(await get(`/projects/${graceProject}`, ada.jwt));
      await expectNotFound(await get(`/projects/${graceProject}?organization_id=${a}`, ada.jwt));
      await expectNotFound(await get(`/projects/${graceProject}?organization_id=${g}`, ada.jwt));
      // Ada's own project, asked for in another organization.
      await expectNotFound(await get(`/projects/${adaProject}?organization_id=${g}`, ada.jwt));
      await expectNotFound(
        await t
          .request()
          .post(`/organizations/${g}/projects`)
          .set(bearer(ada.jwt))
          .send({ name: 'intruder' }),
      );
      expect(await projectCount(g)).toBe(1);
      // What ada can see still answers.
      await get(`/projects/${adaProject}?organization_id=${a}`, ada.jwt).expect(200);
    });

    it("hides another organization's memberships", async () => {
      const a = ada.organizationId;
      const g = grace.organizationId;
      const id = graceMembership.id;
      await expectNotFound(await get(`/memberships/${id}`, ada.jwt));
      await expectNotFound(await get(`/memberships/${id}?organization_id=${a}`, ada.jwt));
      await expectNotFound(await get(`/memberships/${id}?organization_id=${g}`, ada.jwt));
      await expectNotFound(await get(`/memberships?organization_id=${g}`, ada.jwt));
      await expectNotFound(
        await t
          .request()
          .patch(`/memberships/${id}?organization_id=${a}`)
          .set(bearer(ada.jwt))
          .send({ role: 'viewer' }),
      );
      await expectNotFound(
        await t.request().patch(`/memberships/${id}`).set(bearer(ada.jwt)).send({ role: 'viewer' }),
      );
      await expectNotFound(await t.request().delete(`/memberships/${id}`).set(bearer(ada.jwt)));
      expect(await membershipOf(grace, grace.accountId)).toEqual(graceMembership);
    });

    it('answers 404 for ids that are no UUID or do not exist', async () => {
      const a = ada.organizationId;
      for (const path of [
        '/projects/not-a-uuid',
        `/projects/${NO_SUCH_ID}`,
        `/organizations/${a}/projects/not-a-uuid`,
        `/organizations/${a}/projects/${NO_SUCH_ID}`,
        '/organizations/not-a-uuid/projects',
        `/organizations/${NO_SUCH_ID}/projects`,
        '/memberships/not-a-uuid',
        `/memberships/${NO_SUCH_ID}`,
        '/memberships?organization_id=not-a-uuid',
      ]) {
        const res = await get(path, ada.jwt);
        expect({ path, status: res.status, code: res.body.code }).toEqual({
          path,
          status: 404,
          code: 'not_found',
        });
      }
      await expectNotFound(
        await t
          .request()
          .patch('/memberships/not-a-uuid')
          .set(bearer(ada.jwt))
          .send({ role: 'viewer' }),
      );
      await expectNotFound(
        await t.request().delete(`/memberships/${NO_SUCH_ID}`).set(bearer(ada.jwt)),
      );
    });
  });
});
