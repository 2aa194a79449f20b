import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertingTeam } from '../support/alerting.js';
import { bearer, mintToken, type TestAccount } from '../support/identity.js';

type Body = Record<string, unknown>;
type Res = { status: number; body: Body };

const MISSING = '00000000-0000-4000-8000-000000000000';

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
  const expect404 = (res: Res) => {
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  };

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
      const mine = (await createRoster('Mine')).id as string;
      const theirs = (await createRoster('Theirs', otherProjectId)).id as string;
      const theirMember = (
        await send('post', members(theirs, otherProjectId), {
          account_id: developer.accountId,
        }).expect(201)
      ).body.data as Body;
      const theirContact = (
        await send('post', contacts(theirs, otherProjectId), {
          label: 'Theirs',
          phone_number: '+4930123456',
        }).expect(201)
      ).body.data as Body;
      const theirRotation = {
        time_zone: 'UTC',
        start_date: '2030-01-01',
        handoff_time: '00:00',
        shift_length: 'daily',
      };
      await send('put', `${base(otherProjectId)}/${theirs}/rotation`, theirRotation).expect(200);
      const theirOverride = (
        await send('post', `${base(otherProjectId)}/${theirs}/on_call_overrides`, {
          account_id: developer.accountId,
          starts_at: '2030-01-01T00:00:00Z',
          ends_at: '2030-01-02T00:00:00Z',
        }).expect(201)
      ).body.data as Body;
      const snapshot = async () => get(`${base(otherProjectId)}/${theirs}`).expect(200);
      const before = (await snapshot()).body.data;

      for (const roster of [theirs, MISSING, 'not-a-uuid']) {
        const path = `${base()}/${roster}`;
        expect404(await get(path));
        expect404(await send('patch', path, { name: 'taken over' }));
        expect404(await del(path));
        expect404(await get(`${path}/shifts?from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z`));
        expect404(await get(members(roster)));
        expect404(await send('post', members(roster), { account_id: viewer.accountId }));
        expect404(await get(contacts(roster)));
        expect404(
          await send('post', contacts(roster), { label: 'x', phone_number: '+4930123456' }),
        );
        expect404(await get(`${path}/rotation`));
        expect404(await send('put', `${path}/rotation`, theirRotation));
        expect404(await del(`${path}/rotation`));
        expect404(await get(`${path}/on_call_overrides`));
        expect404(
          await send('post', `${path}/on_call_overrides`, {
            account_id: viewer.accountId,
            starts_at: '2030-01-01T00:00:00Z',
            ends_at: '2030-01-02T00:00:00Z',
          }),
        );
      }
      // Their children through my roster, and through their roster in my project.
      for (const roster of [mine, theirs]) {
        const member = `${members(roster)}/${theirMember.id as string}`;
        expect404(await send('patch', member, { position: 0 }));
        expect404(await del(member));
        const contact = `${contacts(roster)}/${theirContact.id as string}`;
        expect404(await get(contact));
        expect404(await send('patch', contact, { label: 'mine now' }));
        expect404(await del(contact));
        const override = `${base()}/${roster}/on_call_overrides/${theirOverride.id as string}`;
        expect404(await get(override));
        expect404(await del(override));
      }
      expect404(await send('patch', `${members(mine)}/not-a-uuid`, { position: 0 }));
      expect((await snapshot()).body.data).toEqual(before);
      expect(
        (await get(`${base(otherProjectId)}/${theirs}/on_call_overrides`).expect(200)).body.data,
      ).toHaveLength(1);
    });

    it('hides the project from another organization', async () => {
      expect404(await get(base(), stranger.jwt));
      expect404(await send('post', base(), { name: 'intruder' }, stranger.jwt));
    });
  });

  describe('access', () => {
    it('lets a viewer read but not write', async () => {
      const id = (await createRoster('Read only')).id as string;
      const member = await addTo(id, owner);
      await get(base(), viewer.jwt).expect(200);
      await get(`${base()}/${id}`, viewer.jwt).expect(200);
      await get(members(id), viewer.jwt).expect(200);
      await get(contacts(id), viewer.jwt).expect(200);
      await get(`${base()}/${id}/on_call_overrides`, viewer.jwt).expect(200);
      await get(
        `${base()}/${id}/shifts?from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z`,
        viewer.jwt,
      ).expect(200);
      for (const res of [
        await send('post', base(), { name: 'x' }, viewer.jwt),
        await send('patch', `${base()}/${id}`, { name: 'x' }, viewer.jwt),
        await del(`${base()}/${id}`, viewer.jwt),
        await send('post', members(id), { account_id: viewer.accountId }, viewer.jwt),
        await send('patch', `${members(id)}/${member.id as string}`, { position: 0 }, viewer.jwt),
        await del(`${members(id)}/${member.id as string}`, viewer.jwt),
        await send('post', contacts(id), { label: 'v', phone_number: '+4930123456' }, viewer.jwt),
        await send(
          'put',
          `${base()}/${id}/rotation`,
          {
            time_zone: 'UTC',
            start_date: '2030-01-01',
            handoff_time: '00:00',
            shift_length: 'daily',
          },
          viewer.jwt,
        ),
        await send(
          'post',
          `${base()}/${id}/on_call_overrides`,
          {
            account_id: viewer.accountId,
            starts_at: '2030-01-01T00:00:00Z',
            ends_at: '2030-01-02T00:00:00Z',
          },
          viewer.jwt,
        ),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('forbidden');
      }
      expect(await order(id)).toEqual([[owner.accountId, 0]]);
    });

    it('needs alerts:delete to create or delete a roster, alerts:update to change one', async () => {
      const before = await count('on_call_roster');
      const denied = await send('post', base(), { name: 'by restricted' }, restricted.jwt);
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('forbidden');
      expect(denied.body.message).toMatch(/alerts:delete/);
      expect(await count('on_call_roster')).toBe(before);

      const id = (await send('post', base(), { name: 'by dev' }, developer.jwt).expect(201)).body
        .data.id as string;
      const renamed = await send('patch', `${base()}/${id}`, { name: 'renamed' }, restricted.jwt);
      expect(renamed.status).toBe(200);
      // Sub-resources need create, not delete, to be added; removing them needs delete.
      const member = await send(
        'post',
        members(id),
        { account_id: owner.accountId },
        restricted.jwt,
      );
      expect(member.status).toBe(201);
      const removal = await del(`${members(id)}/${member.body.data.id as string}`, restricted.jwt);
      expect(removal.status).toBe(403);
      const deletion = await del(`${base()}/${id}`, restricted.jwt);
      expect(deletion.status).toBe(403);
      expect(deletion.body.message).toMatch(/alerts:delete/);
      await get(`${base()}/${id}`).expect(200);
      await del(`${base()}/${id}`, developer.jwt).expect(204);
    });

    it('scopes static tokens per resource: read, write, manage', async () => {
      const read = await mintToken(t, owner.jwt, ['on_call_rosters:read']);
      const write = await mintToken(t, owner.jwt, ['on_call_rosters:write']);
      const manage = await mintToken(t, owner.jwt, ['on_call_rosters:manage']);
      const membersWrite = await mintToken(t, owner.jwt, ['on_call_roster_members:write']);
      const insufficient = (res: Res) => {
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('insufficient_scope');
      };
      await get(base(), read).expect(200);
      insufficient(await send('post', base(), { name: 'token' }, read));
      const id = (await send('post', base(), { name: 'token' }, write).expect(201)).body.data
        .id as string;
      await get(
        `${base()}/${id}/shifts?from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z`,
        read,
      ).expect(200);
      insufficient(await get(members(id), read));
      insufficient(await del(`${base()}/${id}`, write));
      await send('post', members(id), { account_id: owner.accountId }, membersWrite).expect(201);
      insufficient(await get(base(), membersWrite));
      await del(`${base()}/${id}`, manage).expect(204);
    });

    it('answers 403 alerts_capability_not_enabled on every route of a project without the grant', async () => {
      const root = base(bareProjectId);
      const roster = `${root}/${MISSING}`;
      const attempts = [
        t.request().get(root),
        t.request().post(root).send({ name: 'x' }),
        t.request().get(roster),
        t.request().patch(roster).send({ name: 'x' }),
        t.request().delete(roster),
        t.request().get(`${roster}/shifts?from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z`),
        t.request().get(`${roster}/on_call_roster_members`),
        t.request().post(`${roster}/on_call_roster_members`).send({ account_id: MISSING }),
        t.request().patch(`${roster}/on_call_roster_members/${MISSING}`).send({ position: 0 }),
        t.request().delete(`${roster}/on_call_roster_members/${MISSING}`),
        t.request().get(`${roster}/on_call_roster_phone_contacts`),
        t.request().post(`${roster}/on_call_roster_phone_contacts`).send({}),
        t.request().get(`${roster}/on_call_roster_phone_contacts/${MISSING}`),
        t.request().patch(`${roster}/on_call_roster_phone_contacts/${MISSING}`).send({}),
        t.request().delete(`${roster}/on_call_roster_phone_contacts/${MISSING}`),
        t.request().get(`${roster}/rotation`),
        t.request().put(`${roster}/rotation`).send({}),
        t.request().delete(`${roster}/rotation`),
        t.request().get(`${roster}/on_call_overrides`),
        t.request().post(`${roster}/on_call_overrides`).send({}),
        t.request().get(`${roster}/on_call_overrides/${MISSING}`),
        t.request().delete(`${roster}/on_call_overrides/${MISSING}`),
      ];
      for (const attempt of attempts) {
        const res = await attempt.set(bearer(owner.jwt));
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('alerts_capability_not_enabled');
      }
      expect(await count('on_call_roster', bareProjectId)).toBe(0);
    });
  });
});
