import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import type { PutRotationBody } from '../../libs/oncall/src/rosters/rosters.dto.js';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertingTeam } from '../support/alerting.js';
import { api, type Credential, expectError } from '../support/clients/index.js';
import { mintToken, type TestAccount } from '../support/identity.js';

const MISSING = '00000000-0000-4000-8000-000000000000';

const WINDOW = { from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z' };
const ROTATION: PutRotationBody = {
  time_zone: 'UTC',
  start_date: '2030-01-01',
  handoff_time: '00:00',
  shift_length: 'daily',
};

describe('on-call rosters: tenancy and access', () => {
  let t: MailingTestApp;
  let db: DataSource;
  let owner: TestAccount;
  let developer: TestAccount;
  let restricted: TestAccount;
  let viewer: TestAccount;
  let stranger: TestAccount;
  let projectId: string;
  let otherProjectId: string;
  let bareProjectId: string;

  /** The roster clients of one project (and roster) as one caller, owner by default. */
  const rostersAs = (who: Credential = owner, project = projectId) => {
    const client = api(t).as(who);
    return {
      rosters: client.rosters(project),
      members: (roster: string) => client.rosterMembers(project, roster),
      contacts: (roster: string) => client.rosterContacts(project, roster),
      rotation: (roster: string) => client.rotation(project, roster),
      overrides: (roster: string) => client.overrides(project, roster),
    };
  };
  const createRoster = async (name: string, project = projectId) =>
    rostersAs(owner, project).rosters.create({ name });
  const addTo = async (roster: string, account: TestAccount) =>
    rostersAs().members(roster).add({ account_id: account.accountId });
  const order = async (roster: string) =>
    (await rostersAs().members(roster).list()).map((m) => [m.account_id, m.position]);
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
    ({ owner, developer, restricted, viewer, stranger, projectId, otherProjectId, bareProjectId } =
      await alertingTeam(t, 'Rostering Access Org'));
  });

  afterAll(async () => {
    await t.close();
  });

  describe('tenancy', () => {
    it("answers 404 for another project's roster and sub-resources, and changes nothing", async () => {
      const mine = (await createRoster('Mine')).id;
      const theirs = (await createRoster('Theirs', otherProjectId)).id;
      const inOther = rostersAs(owner, otherProjectId);
      const theirMember = await inOther.members(theirs).add({ account_id: developer.accountId });
      const theirContact = await inOther.contacts(theirs).create({
        label: 'Theirs',
        phone_number: '+4930123456',
      });
      await inOther.rotation(theirs).put(ROTATION);
      const theirOverride = await inOther.overrides(theirs).create({
        account_id: developer.accountId,
        starts_at: '2030-01-01T00:00:00Z',
        ends_at: '2030-01-02T00:00:00Z',
      });
      const snapshot = async () => inOther.rosters.show(theirs);
      const before = await snapshot();

      const mineRaw = {
        rosters: rostersAs().rosters.raw,
        members: (roster: string) => rostersAs().members(roster).raw,
        contacts: (roster: string) => rostersAs().contacts(roster).raw,
        rotation: (roster: string) => rostersAs().rotation(roster).raw,
        overrides: (roster: string) => rostersAs().overrides(roster).raw,
      };
      for (const roster of [theirs, MISSING, 'not-a-uuid']) {
        for (const res of [
          await mineRaw.rosters.show(roster),
          await mineRaw.rosters.update(roster, { name: 'taken over' }),
          await mineRaw.rosters.delete(roster),
          await mineRaw.rosters.shifts(roster, WINDOW),
          await mineRaw.members(roster).list(),
          await mineRaw.members(roster).add({ account_id: viewer.accountId }),
          await mineRaw.contacts(roster).list(),
          await mineRaw.contacts(roster).create({ label: 'x', phone_number: '+4930123456' }),
          await mineRaw.rotation(roster).show(),
          await mineRaw.rotation(roster).put(ROTATION),
          await mineRaw.rotation(roster).delete(),
          await mineRaw.overrides(roster).list(),
          await mineRaw.overrides(roster).create({
            account_id: viewer.accountId,
            starts_at: '2030-01-01T00:00:00Z',
            ends_at: '2030-01-02T00:00:00Z',
          }),
        ])
          expectError(res, 404, 'not_found');
      }
      // Their children through my roster, and through their roster in my project.
      for (const roster of [mine, theirs]) {
        for (const res of [
          await mineRaw.members(roster).move(theirMember.id, { position: 0 }),
          await mineRaw.members(roster).delete(theirMember.id),
          await mineRaw.contacts(roster).show(theirContact.id),
          await mineRaw.contacts(roster).update(theirContact.id, { label: 'mine now' }),
          await mineRaw.contacts(roster).delete(theirContact.id),
          await mineRaw.overrides(roster).show(theirOverride.id),
          await mineRaw.overrides(roster).delete(theirOverride.id),
        ])
          expectError(res, 404, 'not_found');
      }
      expectError(
        await mineRaw.members(mine).move('not-a-uuid', { position: 0 }),
        404,
        'not_found',
      );
      expect(await snapshot()).toEqual(before);
      expect(await inOther.overrides(theirs).list()).toHaveLength(1);
    });

    it('hides the project from another organization', async () => {
      const { raw } = rostersAs(stranger).rosters;
      expectError(await raw.list(), 404, 'not_found');
      expectError(await raw.create({ name: 'intruder' }), 404, 'not_found');
    });
  });

  describe('access', () => {
    it('lets a viewer read but not write', async () => {
      const id = (await createRoster('Read only')).id;
      const member = await addTo(id, owner);
      const asViewer = rostersAs(viewer);
      await asViewer.rosters.list();
      await asViewer.rosters.show(id);
      await asViewer.members(id).list();
      await asViewer.contacts(id).list();
      await asViewer.overrides(id).list();
      await asViewer.rosters.shifts(id, WINDOW);
      for (const res of [
        await asViewer.rosters.raw.create({ name: 'x' }),
        await asViewer.rosters.raw.update(id, { name: 'x' }),
        await asViewer.rosters.raw.delete(id),
        await asViewer.members(id).raw.add({ account_id: viewer.accountId }),
        await asViewer.members(id).raw.move(member.id, { position: 0 }),
        await asViewer.members(id).raw.delete(member.id),
        await asViewer.contacts(id).raw.create({ label: 'v', phone_number: '+4930123456' }),
        await asViewer.rotation(id).raw.put(ROTATION),
        await asViewer.overrides(id).raw.create({
          account_id: viewer.accountId,
          starts_at: '2030-01-01T00:00:00Z',
          ends_at: '2030-01-02T00:00:00Z',
        }),
      ])
        expectError(res, 403, 'forbidden');
      expect(await order(id)).toEqual([[owner.accountId, 0]]);
    });

    it('needs alerts:delete to create or delete a roster, alerts:update to change one', async () => {
      const before = await count('on_call_roster');
      const asRestricted = rostersAs(restricted);
      const denied = await asRestricted.rosters.raw.create({ name: 'by restricted' });
      expect(expectError(denied, 403, 'forbidden').message).toMatch(/alerts:delete/);
      expect(await count('on_call_roster')).toBe(before);

      const id = (await rostersAs(developer).rosters.create({ name: 'by dev' })).id;
      await asRestricted.rosters.update(id, { name: 'renamed' });
      // Sub-resources need create, not delete, to be added; removing them needs delete.
      const member = await asRestricted.members(id).add({ account_id: owner.accountId });
      const removal = await asRestricted.members(id).raw.delete(member.id);
      expect(removal.status).toBe(403);
      const deletion = await asRestricted.rosters.raw.delete(id);
      expect(deletion.status).toBe(403);
      expect(deletion.body.message).toMatch(/alerts:delete/);
      await rostersAs().rosters.show(id);
      await rostersAs(developer).rosters.delete(id);
    });

    it('scopes static tokens per resource: read, write, manage', async () => {
      const read = rostersAs(await mintToken(t, owner.jwt, ['on_call_rosters:read']));
      const write = rostersAs(await mintToken(t, owner.jwt, ['on_call_rosters:write']));
      const manage = rostersAs(await mintToken(t, owner.jwt, ['on_call_rosters:manage']));
      const membersWrite = rostersAs(
        await mintToken(t, owner.jwt, ['on_call_roster_members:write']),
      );
      await read.rosters.list();
      expectError(await read.rosters.raw.create({ name: 'token' }), 403, 'insufficient_scope');
      const id = (await write.rosters.create({ name: 'token' })).id;
      await read.rosters.shifts(id, WINDOW);
      expectError(await read.members(id).raw.list(), 403, 'insufficient_scope');
      expectError(await write.rosters.raw.delete(id), 403, 'insufficient_scope');
      await membersWrite.members(id).add({ account_id: owner.accountId });
      expectError(await membersWrite.rosters.raw.list(), 403, 'insufficient_scope');
      await manage.rosters.delete(id);
    });

    it('answers 403 alerts_capability_not_enabled on every route of a project without the grant', async () => {
      const bare = rostersAs(owner, bareProjectId);
      const { raw } = bare.rosters;
      const members = bare.members(MISSING).raw;
      const contacts = bare.contacts(MISSING).raw;
      const rotation = bare.rotation(MISSING).raw;
      const overrides = bare.overrides(MISSING).raw;
      const attempts = [
        raw.list(),
        raw.create({ name: 'x' }),
        raw.show(MISSING),
        raw.update(MISSING, { name: 'x' }),
        raw.delete(MISSING),
        raw.shifts(MISSING, WINDOW),
        members.list(),
        members.add({ account_id: MISSING }),
        members.move(MISSING, { position: 0 }),
        members.delete(MISSING),
        contacts.list(),
        contacts.create({}),
        contacts.show(MISSING),
        contacts.update(MISSING, {}),
        contacts.delete(MISSING),
        rotation.show(),
        rotation.put({}),
        rotation.delete(),
        overrides.list(),
        overrides.create({}),
        overrides.show(MISSING),
        overrides.delete(MISSING),
      ];
      for (const attempt of attempts)
        expectError(await attempt, 403, 'alerts_capability_not_enabled');
      expect(await count('on_call_roster', bareProjectId)).toBe(0);
    });
  });
});
