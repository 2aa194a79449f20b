import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import { api, type Credential, expectError } from '../support/clients/index.js';
import { addMember, createAccount, type TestAccount } from '../support/identity.js';

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

  const rosters = (project = projectId, who: Credential = owner) => api(t).as(who).rosters(project);
  const members = (roster: string) => api(t).as(owner).rosterMembers(projectId, roster);
  const contacts = (roster: string) => api(t).as(owner).rosterContacts(projectId, roster);
  const addTo = async (roster: string, account: TestAccount, position?: number) =>
    members(roster).add({
      account_id: account.accountId,
      ...(position === undefined ? {} : { position }),
    });
  const order = async (roster: string) =>
    (await members(roster).list()).map((m) => [m.account_id, m.position]);
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
      const res = await rosters().raw.create({ name: '  Primary  ' }).expect(201);
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
      expect(await rosters().show(res.body.data.id)).toEqual(res.body.data);
    });

    it('shows members, contacts and the rotation inside the roster', async () => {
      const id = (await rosters().create({ name: 'Composite' })).id;
      const member = await addTo(id, developer);
      const contact = await contacts(id).create({ label: 'NOC', phone_number: '+4930123456' });
      await api(t).as(owner).rotation(projectId, id).put({
        time_zone: 'Europe/Berlin',
        start_date: '2030-01-07',
        handoff_time: '09:00',
        shift_length: 'weekly',
      });
      const shown = await rosters().show(id);
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
      for (const name of ['Bravo', 'alpha', 'Alpha', 'Charlie'])
        await rosters(project).create({ name });
      const res = await rosters(project).raw.list().expect(200);
      const names = (res.body.data as Array<{ name: string }>).map((r) => r.name);
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
      const { raw } = rosters();
      expectError(await raw.create({}), 422, 'validation_failed', ['name']);
      expectError(await raw.create({ name: '   ' }), 422, 'validation_failed', ['name']);
      expectError(await raw.create({ name: 'x'.repeat(201) }), 422, 'validation_failed', ['name']);
      expectError(await raw.create({ name: 7 }), 422, 'validation_failed', ['name']);
      expectError(await raw.create({ name: 'ok', description: 5 }), 422, 'validation_failed', [
        'description',
      ]);
      expectError(await raw.create({ name: 'a\u0000b' }), 422, 'validation_failed', ['name']);
      expect(await count('on_call_roster')).toBe(before);
      await rosters().create({ name: 'x'.repeat(200), description: 'd' });
    });

    it('updates only the fields sent; a null description clears it', async () => {
      const { create, update, show, raw } = rosters();
      const id = (await create({ name: 'Before', description: 'first line' })).id;
      t.clock.advance({ seconds: 5 });
      let updated = await update(id, { name: 'After' });
      expect(updated).toMatchObject({
        name: 'After',
        description: 'first line',
        updated_at: t.clock.now().toISOString(),
      });
      updated = await update(id, { description: null });
      expect(updated).toMatchObject({ name: 'After', description: '' });
      expectError(await raw.update(id, { name: '' }), 422, 'validation_failed', ['name']);
      expectError(await raw.update(id, { name: null }), 422, 'validation_failed', ['name']);
      expect((await show(id)).name).toBe('After');
    });

    it('deletes a roster with everything it holds', async () => {
      const id = (await rosters().create({ name: 'Doomed' })).id;
      await addTo(id, developer);
      await contacts(id).create({ label: 'Desk', phone_number: '+12025550123' });
      await rosters().delete(id);
      expectError(await rosters().raw.show(id), 404, 'not_found');
      expectError(await rosters().raw.delete(id), 404, 'not_found');
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
      const id = (await rosters().create({ name: 'Members' })).id;
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
      const list = await members(id).list();
      expect(list[0]).toEqual({
        id: expect.any(String),
        account_id: restricted.accountId,
        name: 'restricted',
        position: 0,
      });
    });

    it('moves a member up or down, shifting the ones in between', async () => {
      const id = (await rosters().create({ name: 'Moves' })).id;
      const [a, b, c, d] = [
        await addTo(id, owner),
        await addTo(id, developer),
        await addTo(id, viewer),
        await addTo(id, restricted),
      ];
      const { move, raw } = members(id);
      let moved = await move(d.id, { position: 1 });
      expect(moved).toEqual({ ...d, position: 1 });
      expect(await order(id)).toEqual([
        [owner.accountId, 0],
        [restricted.accountId, 1],
        [developer.accountId, 2],
        [viewer.accountId, 3],
      ]);
      moved = await move(a.id, { position: 3 });
      expect(moved.position).toBe(3);
      expect(await order(id)).toEqual([
        [restricted.accountId, 0],
        [developer.accountId, 1],
        [viewer.accountId, 2],
        [owner.accountId, 3],
      ]);
      await move(b.id, { position: 1 });
      expect((await order(id))[1]).toEqual([developer.accountId, 1]);
      expectError(await raw.move(c.id, { position: 4 }), 422, 'validation_failed', ['position']);
      expectError(await raw.move(c.id, { position: -1 }), 422, 'validation_failed', ['position']);
      expectError(await raw.move(c.id, {}), 422, 'validation_failed', ['position']);
      expect((await order(id))[2]).toEqual([viewer.accountId, 2]);
    });

    it('removes a member and closes the gap', async () => {
      const id = (await rosters().create({ name: 'Removal' })).id;
      await addTo(id, owner);
      const middle = await addTo(id, developer);
      await addTo(id, viewer);
      await members(id).delete(middle.id);
      expect(await order(id)).toEqual([
        [owner.accountId, 0],
        [viewer.accountId, 1],
      ]);
      expectError(await members(id).raw.delete(middle.id), 404, 'not_found');
      expectError(await members(id).raw.move(middle.id, { position: 0 }), 404, 'not_found');
    });

    it('refuses accounts outside the organization, duplicates and positions past the end', async () => {
      const id = (await rosters().create({ name: 'Refusals' })).id;
      await addTo(id, owner);
      const before = await count('on_call_roster_member');
      const { raw } = members(id);
      for (const account_id of [stranger.accountId, MISSING, 'nobody'])
        expectError(await raw.add({ account_id }), 422, 'validation_failed', ['account_id']);
      expectError(await raw.add({}), 422, 'validation_failed', ['account_id']);
      const duplicate = await raw.add({ account_id: owner.accountId });
      const envelope = expectError(duplicate, 422, 'validation_failed', ['account_id']);
      expect(JSON.stringify(envelope.details)).toMatch(/already on this roster/);
      expectError(
        await raw.add({ account_id: viewer.accountId, position: 2 }),
        422,
        'validation_failed',
        ['position'],
      );
      expectError(
        await raw.add({ account_id: viewer.accountId, position: 'first' }),
        422,
        'validation_failed',
        ['position'],
      );
      expect(await count('on_call_roster_member')).toBe(before);
      expect(await order(id)).toEqual([[owner.accountId, 0]]);
    });
  });

  describe('phone contacts', () => {
    it('creates, lists by label, updates and deletes contacts', async () => {
      const id = (await rosters().create({ name: 'Contacts' })).id;
      const { create, list, show, update, raw } = contacts(id);
      const created = await create({ label: ' Zulu desk ', phone_number: '+4930123456789' });
      const now = t.clock.now().toISOString();
      expect(created).toEqual({
        id: expect.any(String),
        roster_id: id,
        label: 'Zulu desk',
        phone_number: '+4930123456789',
        created_at: now,
        updated_at: now,
      });
      await create({ label: 'Alpha line', phone_number: '+12025550123' });
      expect((await list()).map((c) => c.label)).toEqual(['Alpha line', 'Zulu desk']);

      expect(await show(created.id)).toEqual(created);
      t.clock.advance({ seconds: 3 });
      const updated = await update(created.id, { phone_number: '+441632960961' });
      expect(updated).toMatchObject({
        label: 'Zulu desk',
        phone_number: '+441632960961',
        updated_at: t.clock.now().toISOString(),
      });
      await update(created.id, { label: 'Bravo desk' });
      expect((await list()).map((c) => c.label)).toEqual(['Alpha line', 'Bravo desk']);
      await contacts(id).delete(created.id);
      expectError(await raw.delete(created.id), 404, 'not_found');
      expectError(await raw.show(created.id), 404, 'not_found');
      expect(await list()).toHaveLength(1);
    });

    it('validates label and E.164 numbers and keeps labels unique per roster', async () => {
      const id = (await rosters().create({ name: 'Contact rules' })).id;
      const other = (await rosters().create({ name: 'Other contacts' })).id;
      const { create, update, list, raw } = contacts(id);
      const desk = await create({ label: 'Desk', phone_number: '+4930123456' });
      const before = await count('on_call_roster_phone_contact');
      for (const phone_number of [
        '4930123456',
        '+0301234567',
        '+49 30 123456',
        '+12345',
        '+1234567890123456',
        12345,
      ])
        expectError(await raw.create({ label: 'x', phone_number }), 422, 'validation_failed', [
          'phone_number',
        ]);
      expectError(
        await raw.create({ label: '', phone_number: '+4930123456' }),
        422,
        'validation_failed',
        ['label'],
      );
      expectError(
        await raw.create({ label: 'y'.repeat(101), phone_number: '+4930123456' }),
        422,
        'validation_failed',
        ['label'],
      );
      expectError(await raw.create({}), 422, 'validation_failed', ['label', 'phone_number']);
      const taken = await raw.create({ label: 'Desk', phone_number: '+4930999999' });
      expectError(taken, 422, 'validation_failed', ['label']);
      expect(await count('on_call_roster_phone_contact')).toBe(before);

      // Another roster may use the label; renaming onto a taken label is refused.
      await contacts(other).create({ label: 'Desk', phone_number: '+4930123456' });
      const second = await create({ label: 'Backup', phone_number: '+4930654321' });
      expectError(await raw.update(second.id, { label: 'Desk' }), 422, 'validation_failed', [
        'label',
      ]);
      expectError(
        await raw.update(second.id, { phone_number: 'call me' }),
        422,
        'validation_failed',
        ['phone_number'],
      );
      await update(desk.id, { label: 'Desk' });
      const labels = (await list()).map((c) => [c.label, c.phone_number]);
      expect(labels).toEqual([
        ['Backup', '+4930654321'],
        ['Desk', '+4930123456'],
      ]);
    });
  });
});
