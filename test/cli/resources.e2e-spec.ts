import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FAKE_IMAGES } from '@platform/testing';
import { type AppsWorld, createAppsWorld, VALUES } from '../apps/support.js';
import { createStorageWorld, type StorageWorld } from '../object-storage/support.js';
import { type CloudWorld, createCloudWorld } from '../openstack/support.js';
import { bearer } from '../support/identity.js';
import { listening, TokenUser } from './run-platform.js';

/*
 * The resource lists, each against its own fake upstream, as the organization's admin (their
 * session JWT in PLATFORM_TOKEN).
 */

describe('platform rgw users list', () => {
  let w: StorageWorld;
  let user: TokenUser;

  beforeAll(async () => {
    w = await createStorageWorld();
    user = new TokenUser(await listening(w.t), w.owner.jwt);
  });
  afterAll(async () => {
    await w?.close();
  });

  it('lists the users of a project in JSON and as a table', async () => {
    const created = await w.createUser('backups');
    const listed = await user.json('rgw', 'users', 'list', '--project', w.projectId);
    expect(listed).toEqual([
      expect.objectContaining({ id: created.id, name: 'backups', uid: created.uid }),
    ]);
    const table = await user.run('rgw', 'users', 'list', '-p', w.projectId);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+UID\s+ACCESS_KEY\s+CREATED_AT$/);
    expect(lines[1].split(/ {2,}/)).toEqual([
      created.id,
      'backups',
      created.uid,
      created.access_key,
      created.created_at,
    ]);
  });

  it("exits 1 with the envelope for another organization's project (404)", async () => {
    const refused = await user.run('rgw', 'users', 'list', '-p', w.strangerProjectId);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('platform: not_found: Project not found (HTTP 404)\n');
  });
});

describe('platform servers list', () => {
  let w: CloudWorld;
  let user: TokenUser;

  beforeAll(async () => {
    w = await createCloudWorld();
    user = new TokenUser(await listening(w.t), w.owner.jwt);
  });
  afterAll(async () => {
    await w?.close();
  });

  it('lists the servers of a project in JSON and as a table', async () => {
    const created = await w.t
      .request()
      .post(`/cloud/servers?project_id=${w.projectId}`)
      .set(bearer(w.owner.jwt))
      .send({ name: 'web-1', flavorRef: 'm1.small', imageRef: FAKE_IMAGES[0].id, networks: [] })
      .expect(202);
    const listed = await user.json('servers', 'list', '--project', w.projectId);
    expect(listed).toEqual([expect.objectContaining({ id: created.body.data.id, name: 'web-1' })]);
    const table = await user.run('servers', 'list', '-p', w.projectId);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+STATUS\s+FLAVOR\s+CREATED$/);
    expect(lines[1]).toMatch(new RegExp(`^${created.body.data.id}  web-1  [A-Z]+\\s+m1\\.small  `));
  });

  it("exits 1 with the envelope for another organization's project (404)", async () => {
    const refused = await user.run('servers', 'list', '-p', w.strangerProjectId);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('platform: not_found: Project not found (HTTP 404)\n');
  });
});

describe('platform apps list', () => {
  let w: AppsWorld;
  let user: TokenUser;

  beforeAll(async () => {
    w = await createAppsWorld();
    user = new TokenUser(await listening(w.t), w.owner.jwt);
  });
  afterAll(async () => {
    await w?.close();
  });

  it('lists the apps of a project in JSON and as a table', async () => {
    const created = await w.t
      .request()
      .post('/apps')
      .set(bearer(w.owner.jwt))
      .send({ project_id: w.projectId, name: 'shop', kind: 'container', values: VALUES.container })
      .expect(201);
    const listed = await user.json('apps', 'list', '--project', w.projectId);
    expect(listed).toEqual([
      expect.objectContaining({ id: created.body.data.id, name: 'shop', kind: 'container' }),
    ]);
    const table = await user.run('apps', 'list', '-p', w.projectId);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+KIND\s+STATUS\s+URL$/);
    expect(lines[1]).toMatch(new RegExp(`^${created.body.data.id}  shop  container  [a-z]+`));
  });

  it("exits 1 with the envelope for another organization's project (404)", async () => {
    const refused = await user.run('apps', 'list', '-p', w.strangerProjectId);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('platform: not_found: Project not found (HTTP 404)\n');
  });
});
