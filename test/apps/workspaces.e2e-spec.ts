import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Groupware, GroupwareKind, NamespaceKind, workspaceNamespace } from '@platform/apps';
import type { KubeObject } from '@platform/kube';
import { DataSource } from 'typeorm';
import { seedMember } from '../support/factories.js';
import { bearer, type TestAccount } from '../support/identity.js';
import { type AppsWorld, createAppsWorld } from './support.js';

/** The routes of /workspaces: Groupware objects of the organization, served by the operator. */
describe('workspaces: Groupware objects of an organization', () => {
  let w: AppsWorld;
  const workspace = (id: string, query = '') => `/workspaces/${id}${query}`;
  const create = (account: TestAccount, body: object) =>
    w.t.request().post('/workspaces').set(bearer(account.jwt)).send(body);
  const read = (account: TestAccount, path: string) =>
    w.t.request().get(path).set(bearer(account.jwt));
  const remove = (account: TestAccount, path: string) =>
    w.t.request().delete(path).set(bearer(account.jwt));
  const groupwareOf = (name: string, account: TestAccount = w.owner) =>
    w.kube.get<Groupware>(GroupwareKind, workspaceNamespace(account.organizationId), name);
  const fields = (res: { body: { details: { fields: Array<{ field: string }> } } }) =>
    res.body.details.fields.map((f) => f.field).sort();

  beforeAll(async () => {
    w = await createAppsWorld();
  });
  afterAll(async () => {
    await w?.close();
  });

  it('creates a Groupware in the namespace of the organization, answering 202 as it stands', async () => {
    const res = await create(w.owner, { name: 'team', profile: 'production' }).expect(202);
    const id = res.body.data.id as string;
    expect(res.body.metadata.organization_id).toBe(w.owner.organizationId);
    expect(res.body.data).toEqual({
      id,
      name: 'team',
      profile: 'production',
      pool_selector: null,
      phase: 'Pending',
      url: null,
      instance: null,
    });
    const namespace = workspaceNamespace(w.owner.organizationId);
    expect(namespace).toBe(`ws-${w.owner.organizationId.slice(0, 8)}`);
    expect(w.kube.get<KubeObject>(NamespaceKind, undefined, namespace)?.metadata.labels).toEqual({
      'platform.neutral.com/organization-id': w.owner.organizationId,
    });
    const groupware = groupwareOf('team')!;
    expect(groupware.metadata.labels).toEqual({
      'platform.neutral.com/organization-id': w.owner.organizationId,
      'platform.neutral.com/workspace-id': id,
    });
    expect(groupware.spec).toEqual({ profile: 'production' });
    const audit = await w.t
      .get(DataSource)
      .query(`SELECT project_id, target_type, details FROM audit_log WHERE action = $1`, [
        'workspaces.create',
      ]);
    expect(audit).toEqual([
      {
        project_id: null,
        target_type: 'workspace',
        details: { name: 'team', profile: 'production' },
      },
    ]);
  });

  it('selects pools by labels, and shows phase, url and instance from the Groupware status', async () => {
    const res = await create(w.developer, {
      name: 'sales',
      profile: 'testing',
      pool_selector: { 'k8s.neutral.com/tier': 'standard', region: 'eu' },
    }).expect(202);
    const id = res.body.data.id as string;
    const groupware = groupwareOf('sales')!;
    expect(groupware.spec?.poolSelector).toEqual({
      matchLabels: { 'k8s.neutral.com/tier': 'standard', region: 'eu' },
    });
    // What the groupware operator reports once it claimed a ready instance of a pool.
    w.kube.put(GroupwareKind, {
      ...groupware,
      status: {
        phase: 'Ready',
        url: 'https://sales.groupware.example.com',
        instanceRef: { namespace: 'pool-standard', name: 'standard-x7k2p' },
        claimedFromPool: 'standard',
      },
    });
    const shown = await read(w.viewer, workspace(id)).expect(200);
    expect(shown.body.data).toEqual({
      id,
      name: 'sales',
      profile: 'testing',
      pool_selector: { 'k8s.neutral.com/tier': 'standard', region: 'eu' },
      phase: 'Ready',
      url: 'https://sales.groupware.example.com',
      instance: { namespace: 'pool-standard', name: 'standard-x7k2p' },
    });
    const listed = await read(w.viewer, '/workspaces').expect(200);
    expect(listed.body.metadata.count).toBe(2);
    expect(listed.body.data.map((ws: { name: string }) => ws.name)).toEqual(['sales', 'team']);
  });

  it('lists only the workspaces made through the platform', async () => {
    w.kube.put(GroupwareKind, {
      apiVersion: 'k8s.neutral.com/v1alpha1',
      kind: 'Groupware',
      metadata: {
        name: 'by-hand',
        namespace: workspaceNamespace(w.owner.organizationId),
        labels: { 'platform.neutral.com/organization-id': w.owner.organizationId },
      },
      spec: { profile: 'testing' },
    });
    const listed = await read(w.owner, '/workspaces').expect(200);
    expect(listed.body.data.map((ws: { name: string }) => ws.name)).toEqual(['sales', 'team']);
  });

  it('deletes the Groupware (204); the workspace is 404 afterwards', async () => {
    const id = (await create(w.owner, { name: 'short-lived', profile: 'testing' }).expect(202)).body
      .data.id as string;
    await remove(w.owner, workspace(id)).expect(204);
    expect(groupwareOf('short-lived')).toBeUndefined();
    expect((await read(w.owner, workspace(id)).expect(404)).body.code).toBe('not_found');
    await remove(w.owner, workspace(id)).expect(404);
    const audit = await w.t
      .get(DataSource)
      .query(`SELECT details FROM audit_log WHERE action = $1 AND target_id = $2`, [
        'workspaces.delete',
        id,
      ]);
    expect(audit).toEqual([{ details: { name: 'short-lived' } }]);
  });

  it('Axis A: viewers read, operators create but not delete, billing managers see nothing', async () => {
    const id = (await create(w.operator, { name: 'ops', profile: 'testing' }).expect(202)).body.data
      .id as string;
    for (const res of [
      await create(w.viewer, { name: 'nope', profile: 'testing' }),
      await remove(w.viewer, workspace(id)),
      await remove(w.operator, workspace(id)),
      await read(w.billing, '/workspaces'),
    ]) {
      expect([res.status, res.body.code]).toEqual([403, 'forbidden']);
    }
    expect(groupwareOf('nope')).toBeUndefined();
    await remove(w.developer, workspace(id)).expect(204);
    await w.t.request().get('/workspaces').expect(401);
  });

  it("tenancy: another organization's workspace is 404, and a member of two names the one meant", async () => {
    const id = (await read(w.owner, '/workspaces').expect(200)).body.data[0].id as string;
    await read(w.stranger, workspace(id)).expect(404);
    await remove(w.stranger, workspace(id)).expect(404);
    expect((await read(w.stranger, '/workspaces').expect(200)).body.data).toEqual([]);

    const both = await seedMember(w.t, w.stranger, 'dev@apps.example', 'developer');
    const unnamed = await read(both, '/workspaces').expect(403);
    expect(unnamed.body.code).toBe('organization_required');
    const theirs = `?organization_id=${w.stranger.organizationId}`;
    await read(both, workspace(id, theirs)).expect(404);
    expect((await read(both, `/workspaces${theirs}`).expect(200)).body.data).toEqual([]);
    const ours = `?organization_id=${w.owner.organizationId}`;
    await read(both, workspace(id, ours)).expect(200);
  });

  it('validation: 422 naming the field, nothing written; a taken name is 409', async () => {
    const before = w.kube.mutations();
    const bad = await create(w.stranger, {
      name: 'Bad_Name',
      profile: 'No Profile',
      pool_selector: { 'bad key!': 'x' },
    }).expect(422);
    expect(fields(bad)).toEqual(['name', 'pool_selector', 'profile']);
    expect(fields(await create(w.stranger, { name: 'ok' }).expect(422))).toEqual(['profile']);
    const unknown = await create(w.stranger, { name: 'ok', profile: 'enterprise' }).expect(422);
    expect(fields(unknown)).toEqual(['profile']);
    expect(unknown.body.details.fields[0].messages[0]).toContain('no groupware profile');
    expect(w.kube.mutations()).toBe(before);
    const namespace = workspaceNamespace(w.stranger.organizationId);
    expect(w.kube.get(NamespaceKind, undefined, namespace)).toBeUndefined();

    const taken = await create(w.owner, { name: 'team', profile: 'testing' }).expect(409);
    expect(taken.body.code).toBe('conflict');
    expect(groupwareOf('team')?.spec?.profile).toBe('production');
  });
});
