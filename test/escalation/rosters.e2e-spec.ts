import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import { addMember, bearer, createAccount, type TestAccount } from '../support/identity.js';

type Body = Record<string, unknown>;
type Res = { status: number; body: Body };

const MISSING = '00000000-0000-4000-8000-000000000000';

describe('on-call rosters', () => {
  let t: MailingTestApp;
  let db: DataSource;
  let owner: TestAccount;
  let developer: TestAccount;
  let restricted: TestAccount;
  let viewer: TestAccount;
  let stranger: TestAccount;
  let projectId: string;

  const base = (project = projectId) => `/projects/${project}/on_call_rosters`;
  const members = (roster: string, project = projectId) =>
    `${base(project)}/${roster}/on_call_roster_members`;
  const contacts = (roster: string, project = projectId) =>
    `${base(project)}/${roster}/on_call_roster_phone_contacts`;
  const send = (method: 'post' | 'patch' | 'put', path: string, body: Body, jwt = owner.jwt) =>
    t.request()[method](path).set(bearer(jwt)).send(body);
  const get = (path: string, jwt = owner.jwt) => t.request().get(path).set(bearer(jwt));
  const del = (path: string, jwt = owner.jwt) => t.request().delete(path).set(bearer(jwt));
  const createRoster = async (name: string, project = projectId) =>
    (await send('post', base(project), { name }).expect(201)).body.data as Body;
  const addTo = async (roster: string, account: TestAccount, position?: number) =>
    (
      await send('post', members(roster), {
        account_id: account.accountId,
        ...(position === undefined ? {} : { position }),
      }).expect(201)
    ).body.data as Body;
  const order = async (roster: string) =>
    ((await get(members(roster)).expect(200)).body.data as Body[]).map((m) => [
      m.account_id,
      m.position,
    ]);
  const count = async (table: string, project = projectId) =>
    (
      await db.query<Array<{ n: number }>>(
        table === 'on_call_roster'
          ? 'SELECT count(*)::int AS n FROM on_call_roster WHERE project_id = $1'
          : `SELECT count(*)::int AS n FROM ${table} x
               JOIN on_call_roster r ON r.id = x.roster_id WHERE r.project_id = $1`,
        [project],
      )
    )[0].n;
  const fieldsOf = (body: Body) =>
    ((body.details as { fields: Array<{ field: string }> }).fields ?? []).map((f) => f.field);
  const expect422 = (res: Res, fields: string[]) => {
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(fieldsOf(res.body)).toEqual(fields);
  };
  const expect404 = (res: Res) => {
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  };

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    db = t.get(DataSource);
    owner = await createAccount(t, t.sink, 'owner@example.com', 'Rostering Org');
    developer = await addMember(t, t.sink, owner, 'dev@example.com', 'developer');
    restricted = await addMember(t, t.sink, owner, 'restricted@example.com', 'developer');
    viewer = await addMember(t, t.sink, owner, 'viewer@example.com', 'viewer');
    stranger = await createAccount(t, t.sink, 'stranger@example.com', 'Stranger Org');
    projectId = await alertsProject(t, owner, 'production');
  });

  afterAll(async () => {
    await t.close();
  });

  describe('rosters', () => {
    it('creates a roster with empty members, contacts and no rotation, and shows it', async () => {
      const res = await send('post', base(), { name: '  Primary  ' }).expect(201);
      expect(res.body.metadata).toMatchObject({
        organization_id: owner.organizationId,
        project_id: projectId,
      });
      const now = t.clock.now().toISOString();
      expect(res.body.data).toEqual({
        id: expect.any(String),
        project_id: projectId,
        name: 'Primary',
        description: '',
        members: [],
        phone_contacts: [],
        rotation: null,
        created_at: now,
        updated_at: now,
      });
      const shown = await get(`${base()}/${res.body.data.id as string}`).expect(200);
      expect(shown.body.data).toEqual(res.body.data);
    });

    it('shows members, contacts and the rotation inside the roster', async () => {
      const roster = await createRoster('Composite');
      const id = roster.id as string;
      const member = await addTo(id, developer);
      const contact = (
        await send('post', contacts(id), { label: 'NOC', phone_number: '+4930123456' }).expect(201)
      ).body.data as Body;
      await send('put', `${base()}/${id}/rotation`, {
        time_zone: 'Europe/Berlin',
        start_date: '2030-01-07',
        handoff_time: '09:00',
        shift_length: 'weekly',
      }).expect(200);
      const shown = (await get(`${base()}/${id}`).expect(200)).body.data as Body;
      expect(shown.members).toEqual([
        { id: member.id, account_id: developer.accountId, name: 'dev', position: 0 },
      ]);
      expect(shown.phone_contacts).toEqual([contact]);
      expect(shown.rotation).toEqual({
        roster_id: id,
        time_zone: 'Europe/Berlin',
        start_date: '2030-01-07',
        handoff_time: '09:00',
        shift_length: 'weekly',
        shift_hours: null,
        created_at: t.clock.now().toISOString(),
        updated_at: t.clock.now().toISOString(),
      });
    });

    it('lists rosters by name, then id', async () => {
      const project = await alertsProject(t, owner, 'ordering');
      for (const name of ['Bravo', 'alpha', 'Alpha', 'Charlie']) await createRoster(name, project);
      const res = await get(base(project)).expect(200);
      const names = (res.body.data as Body[]).map((r) => r.name);
      expect(names).toHaveLength(4);
      expect(names.indexOf('Bravo')).toBeLessThan(names.indexOf('Charlie'));
      const sorted = await db.query<Array<{ name: string }>>(
        'SELECT name FROM on_call_roster WHERE project_id = $1 ORDER BY name, id',
        [project],
      );
      expect(names).toEqual(sorted.map((r) => r.name));
      expect(res.body.metadata.count).toBe(4);
    });

    it('validates name and description, creating nothing', async () => {
      const before = await count('on_call_roster');
      expect422(await send('post', base(), {}), ['name']);
      expect422(await send('post', base(), { name: '   ' }), ['name']);
      expect422(await send('post', base(), { name: 'x'.repeat(201) }), ['name']);
      expect422(await send('post', base(), { name: 7 }), ['name']);
      expect422(await send('post', base(), { name: 'ok', description: 5 }), ['description']);
      expect422(await send('post', base(), { name: 'a\u0000b' }), ['name']);
      expect(await count('on_call_roster')).toBe(before);
      await send('post', base(), { name: 'x'.repeat(200), description: 'd' }).expect(201);
    });

    it('updates only the fields sent; a null description clears it', async () => {
      const id = (
        await send('post', base(), { name: 'Before', description: 'first line' }).expect(201)
      ).body.data.id as string;
      t.clock.advance({ seconds: 5 });
      let res = await send('patch', `${base()}/${id}`, { name: 'After' }).expect(200);
      expect(res.body.data).toMatchObject({
        name: 'After',
        description: 'first line',
        updated_at: t.clock.now().toISOString(),
      });
      res = await send('patch', `${base()}/${id}`, { description: null }).expect(200);
      expect(res.body.data).toMatchObject({ name: 'After', description: '' });
      expect422(await send('patch', `${base()}/${id}`, { name: '' }), ['name']);
      expect422(await send('patch', `${base()}/${id}`, { name: null }), ['name']);
      expect((await get(`${base()}/${id}`).expect(200)).body.data.name).toBe('After');
    });

    it('deletes a roster with everything it holds', async () => {
      const id = (await createRoster('Doomed')).id as string;
      await addTo(id, developer);
      await send('post', contacts(id), { label: 'Desk', phone_number: '+12025550123' }).expect(201);
      await del(`${base()}/${id}`).expect(204);
      expect404(await get(`${base()}/${id}`));
      expect404(await del(`${base()}/${id}`));
      const left = await db.query(
        `SELECT 1 FROM on_call_roster_member WHERE roster_id = $1
         UNION ALL SELECT 1 FROM on_call_roster_phone_contact WHERE roster_id = $1`,
        [id],
      );
      expect(left).toEqual([]);
    });
  });

  describe('members', () => {
    it('appends, inserts at a position and keeps positions dense', async () => {
      const id = (await createRoster('Members')).id as string;
      const first = await addTo(id, owner);
      expect(first).toEqual({
        id: expect.any(String),
        account_id: owner.accountId,
        name: 'owner',
        position: 0,
      });
      await addTo(id, developer);
      const inserted = await addTo(id, viewer, 1);
      expect(inserted.position).toBe(1);
      await addTo(id, restricted, 0);
      expect(await order(id)).toEqual([
        [restricted.accountId, 0],
        [owner.accountId, 1],
        [viewer.accountId, 2],
        [developer.accountId, 3],
      ]);
      const list = (await get(members(id)).expect(200)).body.data as Body[];
      expect(list[0]).toEqual({
        id: expect.any(String),
        account_id: restricted.accountId,
        name: 'restricted',
        position: 0,
      });
    });

    it('moves a member up or down, shifting the ones in between', async () => {
      const id = (await createRoster('Moves')).id as string;
      const [a, b, c, d] = [
        await addTo(id, owner),
        await addTo(id, developer),
        await addTo(id, viewer),
        await addTo(id, restricted),
      ];
      let res = await send('patch', `${members(id)}/${d.id as string}`, { position: 1 }).expect(
        200,
      );
      expect(res.body.data).toEqual({ ...d, position: 1 });
      expect(await order(id)).toEqual([
        [owner.accountId, 0],
        [restricted.accountId, 1],
        [developer.accountId, 2],
        [viewer.accountId, 3],
      ]);
      res = await send('patch', `${members(id)}/${a.id as string}`, { position: 3 }).expect(200);
      expect(res.body.data.position).toBe(3);
      expect(await order(id)).toEqual([
        [restricted.accountId, 0],
        [developer.accountId, 1],
        [viewer.accountId, 2],
        [owner.accountId, 3],
      ]);
      await send('patch', `${members(id)}/${b.id as string}`, { position: 1 }).expect(200);
      expect((await order(id))[1]).toEqual([developer.accountId, 1]);
      expect422(await send('patch', `${members(id)}/${c.id as string}`, { position: 4 }), [
        'position',
      ]);
      expect422(await send('patch', `${members(id)}/${c.id as string}`, { position: -1 }), [
        'position',
      ]);
      expect422(await send('patch', `${members(id)}/${c.id as string}`, {}), ['position']);
      expect((await order(id))[2]).toEqual([viewer.accountId, 2]);
    });

    it('removes a member and closes the gap', async () => {
      const id = (await createRoster('Removal')).id as string;
      await addTo(id, owner);
      const middle = await addTo(id, developer);
      await addTo(id, viewer);
      await del(`${members(id)}/${middle.id as string}`).expect(204);
      expect(await order(id)).toEqual([
        [owner.accountId, 0],
        [viewer.accountId, 1],
      ]);
      expect404(await del(`${members(id)}/${middle.id as string}`));
      expect404(await send('patch', `${members(id)}/${middle.id as string}`, { position: 0 }));
    });

    it('refuses accounts outside the organization, duplicates and positions past the end', async () => {
      const id = (await createRoster('Refusals')).id as string;
      await addTo(id, owner);
      const before = await count('on_call_roster_member');
      expect422(await send('post', members(id), { account_id: stranger.accountId }), [
        'account_id',
      ]);
      expect422(await send('post', members(id), { account_id: MISSING }), ['account_id']);
      expect422(await send('post', members(id), { account_id: 'nobody' }), ['account_id']);
      expect422(await send('post', members(id), {}), ['account_id']);
      const duplicate = await send('post', members(id), { account_id: owner.accountId });
      expect422(duplicate, ['account_id']);
      expect(JSON.stringify(duplicate.body.details)).toMatch(/already on this roster/);
      expect422(await send('post', members(id), { account_id: viewer.accountId, position: 2 }), [
        'position',
      ]);
      expect422(
        await send('post', members(id), { account_id: viewer.accountId, position: 'first' }),
        ['position'],
      );
      expect(await count('on_call_roster_member')).toBe(before);
      expect(await order(id)).toEqual([[owner.accountId, 0]]);
    });
  });

  describe('phone contacts', () => {
    it('creates, lists by label, updates and deletes contacts', async () => {
      const id = (await createRoster('Contacts')).id as string;
      const created = await send('post', contacts(id), {
        label: ' Zulu desk ',
        phone_number: '+4930123456789',
      }).expect(201);
      const now = t.clock.now().toISOString();
      expect(created.body.data).toEqual({
        id: expect.any(String),
        roster_id: id,
        label: 'Zulu desk',
        phone_number: '+4930123456789',
        created_at: now,
        updated_at: now,
      });
      await send('post', contacts(id), {
        label: 'Alpha line',
        phone_number: '+12025550123',
      }).expect(201);
      let list = (await get(contacts(id)).expect(200)).body.data as Body[];
      expect(list.map((c) => c.label)).toEqual(['Alpha line', 'Zulu desk']);

      const path = `${contacts(id)}/${created.body.data.id as string}`;
      expect((await get(path).expect(200)).body.data).toEqual(created.body.data);
      t.clock.advance({ seconds: 3 });
      const updated = await send('patch', path, { phone_number: '+441632960961' }).expect(200);
      expect(updated.body.data).toMatchObject({
        label: 'Zulu desk',
        phone_number: '+441632960961',
        updated_at: t.clock.now().toISOString(),
      });
      await send('patch', path, { label: 'Bravo desk' }).expect(200);
      list = (await get(contacts(id)).expect(200)).body.data as Body[];
      expect(list.map((c) => c.label)).toEqual(['Alpha line', 'Bravo desk']);
      await del(path).expect(204);
      expect404(await del(path));
      expect404(await get(path));
      expect((await get(contacts(id)).expect(200)).body.data).toHaveLength(1);
    });

    it('validates label and E.164 numbers and keeps labels unique per roster', async () => {
      const id = (await createRoster('Contact rules')).id as string;
      const other = (await createRoster('Other contacts')).id as string;
      const desk = (
        await send('post', contacts(id), { label: 'Desk', phone_number: '+4930123456' }).expect(201)
      ).body.data as Body;
      const before = await count('on_call_roster_phone_contact');
      for (const phone_number of [
        '4930123456',
        '+0301234567',
        '+49 30 123456',
        '+12345',
        '+1234567890123456',
        12345,
      ])
        expect422(await send('post', contacts(id), { label: 'x', phone_number }), ['phone_number']);
      expect422(await send('post', contacts(id), { label: '', phone_number: '+4930123456' }), [
        'label',
      ]);
      expect422(
        await send('post', contacts(id), { label: 'y'.repeat(101), phone_number: '+4930123456' }),
        ['label'],
      );
      expect422(await send('post', contacts(id), {}), ['label', 'phone_number']);
      const taken = await send('post', contacts(id), {
        label: 'Desk',
        phone_number: '+4930999999',
      });
      expect422(taken, ['label']);
      expect(await count('on_call_roster_phone_contact')).toBe(before);

      // Another roster may use the label; renaming onto a taken label is refused.
      await send('post', contacts(other), { label: 'Desk', phone_number: '+4930123456' }).expect(
        201,
      );
      const second = (
        await send('post', contacts(id), { label: 'Backup', phone_number: '+4930654321' }).expect(
          201,
        )
      ).body.data as Body;
      expect422(await send('patch', `${contacts(id)}/${second.id as string}`, { label: 'Desk' }), [
        'label',
      ]);
      expect422(
        await send('patch', `${contacts(id)}/${second.id as string}`, { phone_number: 'call me' }),
        ['phone_number'],
      );
      await send('patch', `${contacts(id)}/${desk.id as string}`, { label: 'Desk' }).expect(200);
      const labels = ((await get(contacts(id)).expect(200)).body.data as Body[]).map((c) => [
        c.label,
        c.phone_number,
      ]);
      expect(labels).toEqual([
        ['Backup', '+4930654321'],
        ['Desk', '+4930123456'],
      ]);
    });
  });
});
