import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, FAKE_IMAGES, type TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { WebhookReceiver } from '../alerting/endpoints-receiver.js';
import { bearer, type TestAccount } from '../support/identity.js';
import { claimsOf, deliveriesTo, eventWebhook } from '../webhooks/event-support.js';
import { type CloudWorld, createCloudApp, createCloudWorld } from './support.js';

/** Long enough that a server stays in BUILD until the test says otherwise. */
const BUILDING = 3_600_000;

describe('server events: server.active for servers created through the platform', () => {
  let w: CloudWorld;
  /** A second worker, polling the same servers. */
  let replica: TestApp;
  let receiver: WebhookReceiver;
  let hook: { signing_secret: string };

  const create = async (name: string, projectId = w.projectId, account = w.owner) =>
    (
      await w.t
        .request()
        .post(`/cloud/servers?project_id=${projectId}`)
        .set(bearer(account.jwt))
        .send({ name, flavorRef: 'm1.small', imageRef: FAKE_IMAGES[0].id, networks: [] })
        .expect(202)
    ).body.data.id as string;
  const watchOf = async (serverId: string) =>
    (
      await w.t
        .get(DataSource)
        .query(`SELECT * FROM openstack_server_watch WHERE server_id = $1`, [serverId])
    )[0] as Record<string, unknown> | undefined;
  const settled = (serverId: string) =>
    eventually(
      () => watchOf(serverId),
      (row) => Boolean(row?.settled_at),
      `server ${serverId} to settle`,
    );
  /** Keeps a server in BUILD whatever `serverBuildMs` says. */
  const keepBuilding = (serverId: string, projectId = w.projectId) =>
    Object.assign(novaServer(projectId, serverId), { _createdAt: Number.MAX_SAFE_INTEGER });
  /**
   * Resolves after `count` more polls of the project's servers; a poll lists them only while
   * one is pending, which the canary, always building, sees to.
   */
  const polls = async (projectId = w.projectId, count = 3) => {
    const keystoneId = w.keystoneProjectOf(projectId);
    const seen = () =>
      w.fake.calls.filter((c) => c.path === '/servers/detail' && c.projectId === keystoneId).length;
    const from = seen();
    await eventually(
      async () => seen(),
      (n) => n >= from + count,
      'the servers to be polled',
    );
  };
  const activeOf = async (serverId: string, account: TestAccount = w.owner) =>
    (await deliveriesTo(w.t, account.organizationId, 'server.active')).filter(
      (d) => d.payload.data.server_id === serverId,
    );
  const novaServer = (projectId: string, serverId: string) =>
    w.fake.resources.collection(w.keystoneProjectOf(projectId)!, 'servers').get(serverId) as Record<
      string,
      unknown
    >;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    w = await createCloudWorld({ withWorker: true });
    replica = await createCloudApp(w.fake, { shareWith: w.t, withWorker: true });
    hook = await eventWebhook(w.t, w.owner, receiver);
    await eventWebhook(w.t, w.stranger, receiver);
    w.fake.serverBuildMs = BUILDING;
    keepBuilding(await create('canary'));
  });

  afterAll(async () => {
    await replica?.close();
    await w?.close();
    await receiver?.close();
  });

  it('tells a server once, as server.active, when Nova has it ACTIVE, though two workers poll', async () => {
    w.fake.serverBuildMs = BUILDING;
    const id = await create('web-1');
    expect(await watchOf(id)).toEqual({
      server_id: id,
      project_id: w.projectId,
      organization_id: w.owner.organizationId,
      created_at: expect.any(Date),
      settled_at: null,
      outcome: null,
    });
    // One made beside the platform, in the same Keystone project, and ACTIVE at once.
    const outside = structuredClone(novaServer(w.projectId, id));
    Object.assign(outside, { id: 'made-elsewhere', status: 'ACTIVE', _createdAt: 0 });
    w.fake.resources
      .collection(w.keystoneProjectOf(w.projectId)!, 'servers')
      .set(outside.id as string, outside);
    await polls();
    expect(await activeOf(id)).toEqual([]);

    w.fake.serverBuildMs = 0;
    const got = await receiver.received.waitFor(
      (r) =>
        r.json.type === 'server.active' && (r.json.data as { server_id: string }).server_id === id,
    );
    expect(got.verifiedBy).toEqual([hook.signing_secret]);
    expect(got.json).toEqual({
      type: 'server.active',
      timestamp: expect.any(String),
      data: { server_id: id, project_id: w.projectId, name: 'web-1' },
    });
    expect(await settled(id)).toMatchObject({ outcome: 'active' });
    await polls();
    expect(await activeOf(id)).toHaveLength(1);
    expect(await activeOf('made-elsewhere')).toEqual([]);
    expect(await claimsOf(w.t, id)).toEqual(['active']);
  });

  it('reads every page of a project with more servers than Nova lists at once', async () => {
    w.fake.serverBuildMs = BUILDING;
    const ids = [await create('page-1'), await create('page-2'), await create('page-3')];
    // Pages of two servers: one not read would be taken for deleted.
    w.fake.serverPageSize = 2;
    try {
      w.fake.serverBuildMs = 0;
      for (const id of ids) expect(await settled(id)).toMatchObject({ outcome: 'active' });
    } finally {
      w.fake.serverPageSize = 1000;
    }
    for (const id of ids) expect(await activeOf(id)).toHaveLength(1);
  });

  it('settles a server that fails or is deleted without telling anyone', async () => {
    w.fake.serverBuildMs = BUILDING;
    const broken = await create('broken');
    const gone = await create('gone');
    Object.assign(novaServer(w.projectId, broken), { status: 'ERROR' });
    await w.t
      .request()
      .delete(`/cloud/servers/${gone}?project_id=${w.projectId}`)
      .set(bearer(w.owner.jwt))
      .expect(204);
    expect(await settled(broken)).toMatchObject({ outcome: 'error' });
    expect(await settled(gone)).toMatchObject({ outcome: 'deleted' });
    w.fake.serverBuildMs = 0;
    await polls();
    expect(await activeOf(broken)).toEqual([]);
    expect(await activeOf(gone)).toEqual([]);
  });

  it("tells a server to its own organization's webhooks only", async () => {
    w.fake.serverBuildMs = 0;
    const theirs = await create('theirs', w.strangerProjectId, w.stranger);
    expect(await settled(theirs)).toMatchObject({ outcome: 'active' });
    expect(await activeOf(theirs, w.stranger)).toHaveLength(1);
    expect(await activeOf(theirs)).toEqual([]);
  });

  it('stops watching a server still building an hour after its create', async () => {
    w.fake.serverBuildMs = BUILDING;
    const slow = await create('slow');
    await polls();
    w.t.clock.advance({ minutes: 61 });
    expect(await settled(slow)).toMatchObject({ outcome: 'expired' });
    keepBuilding(await create('canary-2'));
    w.fake.serverBuildMs = 0;
    await polls();
    expect(await activeOf(slow)).toEqual([]);
  });
});
