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

const CALLERS = [
  'admin',
  'developer',
  'operator',
  'viewer',
  'billing_manager',
  /** A developer the admin lets read, create, update and delete memberships. */
  'delegate',
  /** The delegate's static token with `members:*` only. */
  'delegate_token',
  'platform_admin',
] as const;
type Caller = (typeof CALLERS)[number];

const OPERATIONS = [
  'create project',
  'invite viewer',
  'invite developer',
  'invite billing_manager',
  'invite admin',
  'viewer to developer',
  'viewer to admin',
  'demote an admin',
  'remove a viewer',
  'remove an admin',
] as const;
type Operation = (typeof OPERATIONS)[number];

const OK = 'ok';
const FORBIDDEN = '403 forbidden';
const CEILING = '403 role_ceiling';

/**
 * Who may change memberships, invitations and projects, as a table: each row one operation,
 * each column one caller. `ok` is the operation's success status; `-` is not tried (an admin
 * removing another admin is covered by the role ceiling tests).
 */
const EXPECTED: Record<Operation, Record<Caller, string>> = {
  // prettier-ignore
  'create project':         { admin: OK, developer: FORBIDDEN, operator: FORBIDDEN, viewer: FORBIDDEN, billing_manager: FORBIDDEN, delegate: FORBIDDEN, delegate_token: FORBIDDEN, platform_admin: OK },
  // prettier-ignore
  'invite viewer':          { admin: OK, developer: FORBIDDEN, operator: FORBIDDEN, viewer: FORBIDDEN, billing_manager: FORBIDDEN, delegate: OK, delegate_token: CEILING, platform_admin: OK },
  // prettier-ignore
  'invite developer':       { admin: OK, developer: FORBIDDEN, operator: FORBIDDEN, viewer: FORBIDDEN, billing_manager: FORBIDDEN, delegate: OK, delegate_token: CEILING, platform_admin: OK },
  // prettier-ignore
  'invite billing_manager': { admin: OK, developer: FORBIDDEN, operator: FORBIDDEN, viewer: FORBIDDEN, billing_manager: FORBIDDEN, delegate: CEILING, delegate_token: CEILING, platform_admin: OK },
  // prettier-ignore
  'invite admin':           { admin: OK, developer: FORBIDDEN, operator: FORBIDDEN, viewer: FORBIDDEN, billing_manager: FORBIDDEN, delegate: FORBIDDEN, delegate_token: FORBIDDEN, platform_admin: OK },
  // prettier-ignore
  'viewer to developer':    { admin: OK, developer: FORBIDDEN, operator: FORBIDDEN, viewer: FORBIDDEN, billing_manager: FORBIDDEN, delegate: OK, delegate_token: CEILING, platform_admin: OK },
  // prettier-ignore
  'viewer to admin':        { admin: OK, developer: FORBIDDEN, operator: FORBIDDEN, viewer: FORBIDDEN, billing_manager: FORBIDDEN, delegate: FORBIDDEN, delegate_token: FORBIDDEN, platform_admin: OK },
  // prettier-ignore
  'demote an admin':        { admin: OK, developer: FORBIDDEN, operator: FORBIDDEN, viewer: FORBIDDEN, billing_manager: FORBIDDEN, delegate: FORBIDDEN, delegate_token: FORBIDDEN, platform_admin: OK },
  // prettier-ignore
  'remove a viewer':        { admin: OK, developer: FORBIDDEN, operator: FORBIDDEN, viewer: FORBIDDEN, billing_manager: FORBIDDEN, delegate: OK, delegate_token: OK, platform_admin: OK },
  // prettier-ignore
  'remove an admin':        { admin: '-', developer: FORBIDDEN, operator: FORBIDDEN, viewer: FORBIDDEN, billing_manager: FORBIDDEN, delegate: FORBIDDEN, delegate_token: FORBIDDEN, platform_admin: '-' },
};

describe('authorization matrix: roles, invitations and projects', () => {
  let t: MailingTestApp;
  let sink: SmtpSink;
  let db: DataSource;
  let owner: TestAccount;
  const credentials = {} as Record<Caller, string>;
  /** The membership ids of the standing viewer and second admin the rows aim at. */
  let viewerTarget: string;
  let adminTarget: string;
  let n = 0;
  const email = (label: string): string => `${label}-${++n}@matrix-roles.example.com`;
  const platformAdmin = { login: 'root@matrix-roles.example.com', password: 'platform admin pw' };

  beforeAll(async () => {
    t = await createMailingApiTestApp({ config: { platformAdmin } });
    sink = t.sink;
    db = t.get(DataSource);
    owner = await createAccount(t, sink, email('admin'), 'Matrix Org');
    credentials.admin = owner.jwt;
    for (const role of ['developer', 'operator', 'viewer', 'billing_manager'] as const) {
      credentials[role] = (await addMember(t, sink, owner, email(role), role)).jwt;
    }
    const delegate = await addMember(t, sink, owner, email('delegate'), 'developer');
    await t
      .request()
      .patch(`/memberships/${await membershipIdOf(delegate.accountId)}`)
      .set(bearer(owner.jwt))
      .send({ permissions: { members: ['read', 'create', 'update', 'delete'] } })
      .expect(200);
    credentials.delegate = delegate.jwt;
    credentials.delegate_token = await mintToken(t, delegate.jwt, ['members:*']);
    credentials.platform_admin = await login(t, platformAdmin.login, platformAdmin.password);
    viewerTarget = await membershipIdOf(
      (await addMember(t, sink, owner, email('target'), 'viewer')).accountId,
    );
    adminTarget = await membershipIdOf(
      (await addMember(t, sink, owner, email('second-admin'), 'admin')).accountId,
    );
    // Eight accounts, each signed up and logged in (argon2 twice): more than the default 30 s
    // on a busy machine.
  }, 120_000);

  afterAll(async () => {
    await t.close();
  });

  async function membershipIdOf(accountId: string): Promise<string> {
    const [row] = await db.query<Array<{ id: string }>>(
      'SELECT id FROM membership WHERE account_id = $1 AND organization_id = $2',
      [accountId, owner.organizationId],
    );
    return row.id;
  }

  /** Everything a refused call must leave alone. */
  const state = async () => ({
    memberships: await db.query(
      'SELECT id, role, permissions FROM membership WHERE organization_id = $1 ORDER BY id',
      [owner.organizationId],
    ),
    invitations: await db.query('SELECT id FROM invitation WHERE organization_id = $1', [
      owner.organizationId,
    ]),
    projects: await db.query('SELECT id FROM project WHERE organization_id = $1', [
      owner.organizationId,
    ]),
  });

  const setRole = (id: string, role: string) =>
    t
      .request()
      .patch(`/memberships/${id}`)
      .set(bearer(owner.jwt))
      .send({ role, permissions: {} })
      .expect(200);

  /** The request of an operation, and how to undo it when it succeeded. */
  async function perform(operation: Operation, as: string, allowed: boolean) {
    const query = `?organization_id=${owner.organizationId}`;
    const request = () => t.request();
    if (operation === 'create project') {
      return request()
        .post(`/organizations/${owner.organizationId}/projects`)
        .set(bearer(as))
        .send({ name: `project ${++n}` });
    }
    if (operation.startsWith('invite ')) {
      const role = operation.slice('invite '.length);
      return request()
        .post(`/invitations${query}`)
        .set(bearer(as))
        .send({ email: email('invitee'), role });
    }
    if (operation === 'viewer to developer' || operation === 'viewer to admin') {
      const role = operation === 'viewer to developer' ? 'developer' : 'admin';
      const res = await request()
        .patch(`/memberships/${viewerTarget}${query}`)
        .set(bearer(as))
        .send({ role });
      if (res.status === 200) await setRole(viewerTarget, 'viewer');
      return res;
    }
    if (operation === 'demote an admin') {
      const res = await request()
        .patch(`/memberships/${adminTarget}${query}`)
        .set(bearer(as))
        .send({ role: 'viewer' });
      if (res.status === 200) await setRole(adminTarget, 'admin');
      return res;
    }
    // A removal that is to succeed gets a viewer of its own.
    const target =
      operation === 'remove an admin'
        ? adminTarget
        : allowed
          ? await membershipIdOf(
              (await addMember(t, sink, owner, email('leaver'), 'viewer')).accountId,
            )
          : viewerTarget;
    return request().delete(`/memberships/${target}${query}`).set(bearer(as));
  }

  const SUCCESS: Partial<Record<Operation, number>> = {
    'create project': 201,
    'remove a viewer': 204,
  };

  it('answers each caller as the table says, and a refusal changes nothing', async () => {
    const failures: string[] = [];
    for (const operation of OPERATIONS) {
      for (const caller of CALLERS) {
        const expected = EXPECTED[operation][caller];
        if (expected === '-') continue;
        const allowed = expected === OK;
        const before = allowed ? null : await state();
        const res = await perform(operation, credentials[caller], allowed);
        const success = SUCCESS[operation] ?? (operation.startsWith('invite ') ? 201 : 200);
        const got = res.status === success ? OK : `${res.status} ${res.body.code}`;
        if (got !== expected) failures.push(`${operation} by ${caller}: ${got}, not ${expected}`);
        if (before && JSON.stringify(await state()) !== JSON.stringify(before))
          failures.push(`${operation} by ${caller}: refused, yet changed something`);
      }
    }
    expect(failures).toEqual([]);
  });
});
