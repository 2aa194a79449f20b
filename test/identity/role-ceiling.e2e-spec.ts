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
} from '../support/identity.js';

interface MembershipBody {
  id: string;
  account_id: string;
  role: string;
  permissions: Record<string, string[]>;
}

interface AuditRow {
  action: string;
  actor_account_id: string | null;
  credential_kind: string | null;
  target_type: string;
  target_id: string;
  details: Record<string, unknown>;
}

/**
 * The role ceiling and the last-admin rule, tried as an attacker would: a member who may
 * change memberships promoting itself or demoting the real admin, grants above one's own
 * permissions, and concurrent demotions of the last two admins.
 */
describe('role ceiling', () => {
  let t: MailingTestApp;
  let sink: SmtpSink;
  let db: DataSource;
  let n = 0;

  const email = (label: string): string => `${label}-${++n}@ceiling.example.com`;
  const platformAdmin = { login: 'root@ceiling.example.com', password: 'platform admin password' };

  beforeAll(async () => {
    t = await createMailingApiTestApp({ config: { platformAdmin } });
    sink = t.sink;
    db = t.get(DataSource);
  });

  afterAll(async () => {
    await t.close();
  });

  const memberships = async (admin: TestAccount): Promise<MembershipBody[]> =>
    (
      await t
        .request()
        .get(`/memberships?organization_id=${admin.organizationId}`)
        .set(bearer(admin.jwt))
        .expect(200)
    ).body.data as MembershipBody[];

  const membershipOf = async (admin: TestAccount, who: TestAccount): Promise<MembershipBody> =>
    (await memberships(admin)).find((m) => m.account_id === who.accountId)!;

  const patch = (as: string, admin: TestAccount, id: string, body: object) =>
    t
      .request()
      .patch(`/memberships/${id}?organization_id=${admin.organizationId}`)
      .set(bearer(as))
      .send(body);

  const remove = (as: string, admin: TestAccount, id: string) =>
    t
      .request()
      .delete(`/memberships/${id}?organization_id=${admin.organizationId}`)
      .set(bearer(as));

  const invite = (as: string, admin: TestAccount, body: object) =>
    t
      .request()
      .post(`/invitations?organization_id=${admin.organizationId}`)
      .set(bearer(as))
      .send(body);

  const auditRows = (organizationId: string): Promise<AuditRow[]> =>
    db.query(
      `SELECT action, actor_account_id, credential_kind, target_type, target_id, details
         FROM audit_log WHERE organization_id = $1 ORDER BY created_at, action`,
      [organizationId],
    );

  const invitationCount = async (organizationId: string): Promise<number> =>
    Number(
      (
        await db.query<Array<{ n: string }>>(
          'SELECT count(*) AS n FROM invitation WHERE organization_id = $1',
          [organizationId],
        )
      )[0].n,
    );

  const expectRefusal = (
    res: { status: number; body: { code: string } },
    status: number,
    code: string,
  ) => expect({ status: res.status, code: res.body.code }).toEqual({ status, code });

  /** An organization whose admin made a developer able to change and remove memberships. */
  async function organizationWithDelegate() {
    const admin = await createAccount(t, sink, email('admin'));
    const delegate = await addMember(t, sink, admin, email('delegate'), 'developer');
    const viewer = await addMember(t, sink, admin, email('viewer'), 'viewer');
    const delegation = await membershipOf(admin, delegate);
    await patch(admin.jwt, admin, delegation.id, {
      permissions: { members: ['read', 'create', 'update', 'delete'] },
    }).expect(200);
    return { admin, delegate, viewer };
  }

  describe('a member who may change memberships', () => {
    it('cannot promote itself to admin, nor add levels it lacks (403)', async () => {
      const { admin, delegate } = await organizationWithDelegate();
      const own = await membershipOf(admin, delegate);
      const auditBefore = await auditRows(admin.organizationId);

      expectRefusal(await patch(delegate.jwt, admin, own.id, { role: 'admin' }), 403, 'forbidden');
      const above = await patch(delegate.jwt, admin, own.id, {
        permissions: { members: ['read', 'create', 'update', 'delete'], billing: ['read'] },
      });
      expectRefusal(above, 403, 'role_ceiling');
      expect(above.body.details).toEqual({ exceeding: { billing: ['read'] } });
      const projects = await patch(delegate.jwt, admin, own.id, {
        permissions: { projects: ['read', 'create'] },
      });
      expectRefusal(projects, 403, 'role_ceiling');
      expect(projects.body.details).toEqual({ exceeding: { projects: ['create'] } });

      expect(await membershipOf(admin, delegate)).toEqual(own);
      expect(await auditRows(admin.organizationId)).toEqual(auditBefore);
      // Still a developer: creating projects stays the admin's.
      const project = await t
        .request()
        .post(`/organizations/${admin.organizationId}/projects`)
        .set(bearer(delegate.jwt))
        .send({ name: 'escalated' });
      expectRefusal(project, 403, 'forbidden');
    });

    it('cannot demote or remove the real admin (403 forbidden)', async () => {
      const { admin, delegate } = await organizationWithDelegate();
      const real = await membershipOf(admin, admin);

      for (const role of ['viewer', 'developer', 'billing_manager']) {
        expectRefusal(await patch(delegate.jwt, admin, real.id, { role }), 403, 'forbidden');
      }
      expectRefusal(
        await patch(delegate.jwt, admin, real.id, { permissions: { members: [] } }),
        403,
        'forbidden',
      );
      expectRefusal(await remove(delegate.jwt, admin, real.id), 403, 'forbidden');

      expect(await membershipOf(admin, admin)).toEqual(real);
      await t
        .request()
        .get(`/memberships?organization_id=${admin.organizationId}`)
        .set(bearer(admin.jwt))
        .expect(200);
    });

    it('cannot grant a role or levels above its own (403 role_ceiling)', async () => {
      const { admin, delegate, viewer } = await organizationWithDelegate();
      const target = await membershipOf(admin, viewer);

      const billing = await patch(delegate.jwt, admin, target.id, { role: 'billing_manager' });
      expectRefusal(billing, 403, 'role_ceiling');
      expect(billing.body.details).toEqual({
        exceeding: { billing: ['read', 'create', 'update', 'delete'] },
      });
      expectRefusal(
        await patch(delegate.jwt, admin, target.id, { permissions: { projects: ['create'] } }),
        403,
        'role_ceiling',
      );
      expectRefusal(
        await patch(delegate.jwt, admin, target.id, { role: 'admin' }),
        403,
        'forbidden',
      );
      expect(await membershipOf(admin, viewer)).toEqual(target);

      const invitations = await invitationCount(admin.organizationId);
      const invited = await invite(delegate.jwt, admin, {
        email: email('accomplice'),
        role: 'billing_manager',
      });
      expectRefusal(invited, 403, 'role_ceiling');
      expect(invited.body.details).toEqual({
        exceeding: { billing: ['read', 'create', 'update', 'delete'] },
      });
      expectRefusal(
        await invite(delegate.jwt, admin, { email: email('accomplice'), role: 'admin' }),
        403,
        'forbidden',
      );
      expect(await invitationCount(admin.organizationId)).toBe(invitations);
    });

    it('still grants, narrows and removes within its ceiling', async () => {
      const { admin, delegate, viewer } = await organizationWithDelegate();
      const target = await membershipOf(admin, viewer);

      const promoted = await patch(delegate.jwt, admin, target.id, { role: 'developer' });
      expect(promoted.status).toBe(200);
      expect(promoted.body.data).toMatchObject({ role: 'developer', permissions: {} });
      const narrowed = await patch(delegate.jwt, admin, target.id, {
        role: 'operator',
        permissions: { alerts: ['read'] },
      });
      expect(narrowed.status).toBe(200);
      expect(narrowed.body.data.effective_permissions.alerts).toEqual(['read']);
      await invite(delegate.jwt, admin, { email: email('colleague'), role: 'operator' }).expect(
        201,
      );
      // Its own levels may go down, and then bound what it grants.
      const own = await membershipOf(admin, delegate);
      await patch(delegate.jwt, admin, own.id, {
        permissions: { members: ['read', 'create', 'update', 'delete'], dns: ['read'] },
      }).expect(200);
      const lowered = await invite(delegate.jwt, admin, {
        email: email('colleague'),
        role: 'operator',
      });
      expectRefusal(lowered, 403, 'role_ceiling');
      expect(lowered.body.details).toEqual({ exceeding: { dns: ['create', 'update'] } });
      await remove(delegate.jwt, admin, target.id).expect(204);
      expect((await memberships(admin)).map((m) => m.account_id)).not.toContain(viewer.accountId);
    });
  });

  describe('static tokens', () => {
    it("grant no more than the token's scopes cover", async () => {
      const admin = await createAccount(t, sink, email('token-admin'));
      const members = await mintToken(t, admin.jwt, ['members:write']);
      const refused = await t
        .request()
        .post('/invitations')
        .set(bearer(members))
        .send({ email: email('via-token'), role: 'viewer' });
      expectRefusal(refused, 403, 'role_ceiling');
      expect(Object.keys(refused.body.details.exceeding as object).sort()).toEqual(
        [
          'alerts',
          'apps',
          'workspaces',
          'compute',
          'dns',
          'kubernetes',
          'network',
          'organization',
          'projects',
          'rgw',
          'tokens',
          'vpn',
          'webhooks',
        ].sort(),
      );

      const everything = await mintToken(t, admin.jwt, [
        ...[
          'organization',
          'members',
          'projects',
          'tokens',
          'webhooks',
          'alerts',
          'rgw',
          'dns',
          'compute',
          'network',
          'kubernetes',
          'apps',
          'workspaces',
          'vpn',
          'billing',
        ].map((c) => `${c}:*`),
      ]);
      await t
        .request()
        .post('/invitations')
        .set(bearer(everything))
        .send({ email: email('via-token'), role: 'admin' })
        .expect(201);
    });
  });

  describe('admins', () => {
    it('promote and demote admins; a promotion clears overrides, and admins take none', async () => {
      const admin = await createAccount(t, sink, email('promoter'));
      const member = await addMember(t, sink, admin, email('promoted'), 'viewer');
      const target = await membershipOf(admin, member);
      await patch(admin.jwt, admin, target.id, {
        permissions: { alerts: ['read', 'update'] },
      }).expect(200);

      const promoted = await patch(admin.jwt, admin, target.id, { role: 'admin' }).expect(200);
      expect(promoted.body.data).toMatchObject({ role: 'admin', permissions: {} });
      const overridden = await patch(admin.jwt, admin, target.id, {
        permissions: { members: ['read'] },
      }).expect(422);
      expect(overridden.body.code).toBe('validation_failed');
      expect(overridden.body.details.fields).toEqual([
        { field: 'permissions', messages: [expect.stringContaining('admin')] },
      ]);
      // The promoted admin may demote the one who promoted it.
      const own = await membershipOf(admin, admin);
      const demoted = await patch(member.jwt, admin, own.id, { role: 'developer' }).expect(200);
      expect(demoted.body.data.role).toBe('developer');
    });

    it('platform admins pass the ceiling in any organization', async () => {
      const admin = await createAccount(t, sink, email('customer'));
      const member = await addMember(t, sink, admin, email('customer-member'), 'viewer');
      const root = await login(t, platformAdmin.login, platformAdmin.password);
      const target = await membershipOf(admin, member);
      await patch(root, admin, target.id, { role: 'admin' }).expect(200);
      await invite(root, admin, { email: email('support'), role: 'billing_manager' }).expect(201);
      const rows = await auditRows(admin.organizationId);
      expect(rows.filter((r) => r.action === 'memberships.update').at(-1)).toMatchObject({
        target_id: target.id,
        credential_kind: 'jwt',
        details: { before: { role: 'viewer' }, after: { role: 'admin' } },
      });
    });
  });

  describe('the last admin', () => {
    it('can be neither demoted nor removed, not even by a platform admin (422 last_admin)', async () => {
      const admin = await createAccount(t, sink, email('alone'));
      const own = await membershipOf(admin, admin);
      const root = await login(t, platformAdmin.login, platformAdmin.password);
      for (const as of [admin.jwt, root]) {
        expectRefusal(await patch(as, admin, own.id, { role: 'viewer' }), 422, 'last_admin');
        expectRefusal(await remove(as, admin, own.id), 422, 'last_admin');
      }
      expect(await membershipOf(admin, admin)).toEqual(own);
    });

    /**
     * The last two admins change at the same moment. A test transaction holds the
     * organization's row while both requests arrive, so both wait on it when it lets go: without
     * the service's lock both would see two admins and pass. Demoting each other, the second
     * finds itself demoted already (its own membership is read under the lock too).
     */
    it.each([
      ['demote themselves', 'self', 'demote', 200, 422, 'last_admin'],
      ['leave', 'self', 'remove', 204, 422, 'last_admin'],
      ['demote each other', 'other', 'demote', 200, 403, 'forbidden'],
    ] as const)(
      'keeps one admin when the last two %s at once',
      async (_label, whom, verb, success, status, code) => {
        const first = await createAccount(t, sink, email(`${verb}-first`));
        const second = await addMember(t, sink, first, email(`${verb}-second`), 'admin');
        const [a, b] = [await membershipOf(first, first), await membershipOf(first, second)];
        const change = (as: TestAccount, id: string) =>
          verb === 'demote'
            ? patch(as.jwt, first, id, { role: 'viewer' })
            : remove(as.jwt, first, id);

        const runner = db.createQueryRunner();
        await runner.connect();
        let results: Array<{ status: number; body: { code?: string } }>;
        try {
          await runner.startTransaction();
          await runner.query('SELECT 1 FROM organization WHERE id = $1 FOR UPDATE', [
            first.organizationId,
          ]);
          const pending = Promise.all([
            change(first, whom === 'self' ? a.id : b.id),
            change(second, whom === 'self' ? b.id : a.id),
          ]);
          await waitForLockWaiters(2);
          await runner.commitTransaction();
          results = await pending;
        } finally {
          await runner.release();
        }

        expect(results.map((r) => r.status).sort()).toEqual([success, status].sort());
        expect(results.find((r) => r.status === status)!.body.code).toBe(code);
        const admins: Array<{ account_id: string }> = await db.query(
          `SELECT account_id FROM membership WHERE organization_id = $1 AND role = 'admin'`,
          [first.organizationId],
        );
        expect(admins).toHaveLength(1);
        const changes = (await auditRows(first.organizationId)).filter((r) =>
          r.action.startsWith('memberships.'),
        );
        expect(changes).toHaveLength(1);
      },
    );
  });

  describe('audit', () => {
    it('records role and permission changes and removals with who, how and what', async () => {
      const admin = await createAccount(t, sink, email('audited'));
      const member = await addMember(t, sink, admin, email('audited-member'), 'viewer');
      const target = await membershipOf(admin, member);
      await patch(admin.jwt, admin, target.id, {
        role: 'operator',
        permissions: { dns: ['read'] },
      }).expect(200);
      await remove(admin.jwt, admin, target.id).expect(204);

      const rows = (await auditRows(admin.organizationId)).filter((r) =>
        r.action.startsWith('memberships.'),
      );
      expect(rows).toEqual([
        {
          action: 'memberships.remove',
          actor_account_id: admin.accountId,
          credential_kind: 'jwt',
          target_type: 'membership',
          target_id: target.id,
          details: {
            account_id: member.accountId,
            before: { role: 'operator', permissions: { dns: ['read'] } },
          },
        },
        {
          action: 'memberships.update',
          actor_account_id: admin.accountId,
          credential_kind: 'jwt',
          target_type: 'membership',
          target_id: target.id,
          details: {
            account_id: member.accountId,
            before: { role: 'viewer', permissions: {} },
            after: { role: 'operator', permissions: { dns: ['read'] } },
          },
        },
      ]);
    });
  });

  /** Waits until `count` sessions of this test's database wait for a lock. */
  async function waitForLockWaiters(count: number): Promise<void> {
    for (let attempt = 0; attempt < 400; attempt++) {
      const rows: Array<{ n: string }> = await db.query(
        `SELECT count(*) AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (Number(rows[0].n) >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`fewer than ${count} requests waited for the organization's lock`);
  }
});
