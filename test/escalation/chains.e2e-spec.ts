import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertingTeam, alertsProject } from '../support/alerting.js';
import { bearer, mintToken, type TestAccount } from '../support/identity.js';

type Body = Record<string, unknown>;
type Res = { status: number; body: Body };

const MISSING = '00000000-0000-4000-8000-000000000000';

describe('escalation chains and steps', () => {
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

  const chains = (project = projectId) => `/projects/${project}/escalation_chains`;
  const steps = (chainId: string, project = projectId) =>
    `${chains(project)}/${chainId}/escalation_steps`;
  const get = (path: string, jwt = owner.jwt) => t.request().get(path).set(bearer(jwt));
  const post = (path: string, body: Body = {}, jwt = owner.jwt) =>
    t.request().post(path).set(bearer(jwt)).send(body);
  const patch = (path: string, body: Body, jwt = owner.jwt) =>
    t.request().patch(path).set(bearer(jwt)).send(body);
  const del = (path: string, jwt = owner.jwt) => t.request().delete(path).set(bearer(jwt));
  const newChain = async (body: Body = { name: 'chain' }, project = projectId) =>
    (await post(chains(project), body).expect(201)).body.data as Body;
  const newStep = async (chainId: string, body: Body, project = projectId) =>
    (await post(steps(chainId, project), body).expect(201)).body.data as Body;
  const inApp = (extra: Body = {}): Body => ({
    target_type: 'org_admins',
    channels: ['in_app'],
    ...extra,
  });
  const positions = async (chainId: string) =>
    ((await get(steps(chainId)).expect(200)).body.data as Body[]).map((s) => [s.id, s.position]);
  const count = async (table: string) =>
    (await db.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM ${table}`))[0].n;
  const fieldsOf = (body: Body) =>
    ((body.details as { fields: Array<{ field: string }> }).fields ?? []).map((f) => f.field);
  const expect422 = (res: Res, fields: string[]) => {
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(fieldsOf(res.body)).toEqual(fields);
  };
  const expectStatus = (res: Res, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
  };
  const insertRoster = async (project: string, name = 'roster') =>
    (
      await db.query<Array<{ id: string }>>(
        `INSERT INTO on_call_roster (project_id, name, created_at, updated_at)
         VALUES ($1, $2, now(), now()) RETURNING id`,
        [project, name],
      )
    )[0].id;

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    db = t.get(DataSource);
    ({ owner, developer, restricted, viewer, stranger, projectId, otherProjectId, bareProjectId } =
      await alertingTeam(t, 'Escalation Org'));
  });

  afterAll(async () => {
    await t.close();
  });

  describe('chains', () => {
    it('creates a chain with the defaults, shows it and lists chains by name', async () => {
      const project = await alertsProject(t, owner, 'listing');
      const res = await post(chains(project), { name: 'Primary' }).expect(201);
      expect(res.body.metadata).toMatchObject({ project_id: project });
      const primary = res.body.data as Body;
      expect(primary).toEqual({
        id: expect.any(String),
        project_id: project,
        name: 'Primary',
        description: '',
        re_escalation_after: null,
        repeats: 0,
        steps: [],
        created_at: t.clock.now().toISOString(),
        updated_at: t.clock.now().toISOString(),
      });
      expect(
        (await get(`${chains(project)}/${primary.id as string}`).expect(200)).body.data,
      ).toEqual(primary);
      const backup = await newChain(
        { name: 'Backup', description: 'nights', re_escalation_after: 600, repeats: 3 },
        project,
      );
      expect(backup).toMatchObject({ description: 'nights', re_escalation_after: 600, repeats: 3 });
      const step = await newStep(backup.id as string, inApp(), project);
      const list = (await get(chains(project)).expect(200)).body.data as Body[];
      expect(list).toEqual([{ ...backup, steps: [step] }, primary]);
    });

    it('updates only the fields sent; null clears description and re_escalation_after', async () => {
      const chain = await newChain({
        name: 'Update me',
        description: 'd',
        re_escalation_after: 3600,
        repeats: 2,
      });
      t.clock.advance({ minutes: 1 });
      const path = `${chains()}/${chain.id as string}`;
      let res = await patch(path, { repeats: 10, re_escalation_after: 60 }).expect(200);
      expect(res.body.data).toEqual({
        ...chain,
        repeats: 10,
        re_escalation_after: 60,
        updated_at: t.clock.now().toISOString(),
      });
      res = await patch(path, {
        name: 'Renamed',
        description: null,
        re_escalation_after: null,
      }).expect(200);
      expect(res.body.data).toMatchObject({
        name: 'Renamed',
        description: '',
        re_escalation_after: null,
        repeats: 10,
      });
    });

    it('refuses bad fields with 422 naming each one, writing nothing', async () => {
      const before = await count('escalation_chain');
      const cases: Array<[Body, string[]]> = [
        [{}, ['name']],
        [{ name: '   ' }, ['name']],
        [{ name: 'x'.repeat(201) }, ['name']],
        [{ name: 'c', description: 'x'.repeat(2001) }, ['description']],
        [{ name: 'c', re_escalation_after: 59 }, ['re_escalation_after']],
        [{ name: 'c', re_escalation_after: 604801 }, ['re_escalation_after']],
        [{ name: 'c', re_escalation_after: 90.5 }, ['re_escalation_after']],
        [{ name: 'c', re_escalation_after: '600' }, ['re_escalation_after']],
        [{ name: 'c', repeats: 11 }, ['repeats']],
        [{ name: 'c', repeats: -1 }, ['repeats']],
        [{ name: 'c', repeats: null }, ['repeats']],
        [{ name: 7, repeats: 'many' }, ['name', 'repeats']],
      ];
      for (const [body, fields] of cases) expect422(await post(chains(), body), fields);
      expect(await count('escalation_chain')).toBe(before);

      const chain = await newChain({ name: 'Stays', repeats: 1 });
      const path = `${chains()}/${chain.id as string}`;
      expect422(await patch(path, { name: null }), ['name']);
      expect422(await patch(path, { repeats: null, re_escalation_after: 30 }), [
        're_escalation_after',
        'repeats',
      ]);
      expect((await get(path).expect(200)).body.data).toEqual(chain);
    });

    it('deletes a chain and its steps; routes keep existing unreferenced, instances keep their snapshot', async () => {
      const chain = await newChain({ name: 'Doomed' });
      const step = await newStep(chain.id as string, inApp());
      const route = (
        await post(`/projects/${projectId}/alert_routes`, {
          priority: 1,
          escalation_chain_id: chain.id,
        }).expect(201)
      ).body.data as Body;
      const [alert] = await db.query<Array<{ id: string }>>(
        `INSERT INTO alert (project_id, fingerprint, status, severity, starts_at, last_received_at, created_at, updated_at)
         VALUES ($1, 'doomed', 'firing', 'critical', now(), now(), now(), now()) RETURNING id`,
        [projectId],
      );
      const snapshot = { id: chain.id, name: 'Doomed', re_escalation_after: null, repeats: 0 };
      const [instance] = await db.query<Array<{ id: string }>>(
        `INSERT INTO escalation_instance (project_id, alert_id, chain_id, chain_snapshot, state, opened_at, updated_at)
         VALUES ($1, $2, $3, $4, 'acknowledged', now(), now()) RETURNING id`,
        [projectId, alert.id, chain.id, JSON.stringify({ ...snapshot, steps: [step] })],
      );

      await del(`${chains()}/${chain.id as string}`).expect(204);
      expectStatus(await get(`${chains()}/${chain.id as string}`), 404, 'not_found');
      expect(await db.query('SELECT 1 FROM escalation_step WHERE id = $1', [step.id])).toEqual([]);
      const shown = await get(`/projects/${projectId}/alert_routes/${route.id as string}`);
      expect(shown.body.data).toMatchObject({ id: route.id, escalation_chain_id: null });
      const [kept] = await db.query<Array<{ chain_id: string | null; chain_snapshot: Body }>>(
        'SELECT chain_id, chain_snapshot FROM escalation_instance WHERE id = $1',
        [instance.id],
      );
      expect(kept.chain_id).toBeNull();
      expect(kept.chain_snapshot).toMatchObject({ ...snapshot, steps: [{ id: step.id }] });
      expectStatus(await del(`${chains()}/${chain.id as string}`), 404, 'not_found');
      await del(`/projects/${projectId}/alert_routes/${route.id as string}`).expect(204);
    });

    it("answers 404 for unknown, malformed and another project's chain ids, changing nothing", async () => {
      const theirs = await newChain({ name: 'Theirs' }, otherProjectId);
      const theirStep = await newStep(theirs.id as string, inApp(), otherProjectId);
      for (const id of [MISSING, 'not-a-uuid', theirs.id as string]) {
        const path = `${chains()}/${id}`;
        for (const res of [
          await get(path),
          await patch(path, { name: 'hijacked' }),
          await del(path),
          await post(`${path}/clone`),
          await get(`${path}/resolved_targets`),
          await get(steps(id)),
          await post(steps(id), inApp()),
          await get(`${steps(id)}/${theirStep.id as string}`),
          await patch(`${steps(id)}/${theirStep.id as string}`, { delay_seconds: 9 }),
          await del(`${steps(id)}/${theirStep.id as string}`),
        ])
          expectStatus(res, 404, 'not_found');
      }
      const shown = await get(`${chains(otherProjectId)}/${theirs.id as string}`).expect(200);
      expect(shown.body.data).toEqual({ ...theirs, steps: [theirStep] });
    });
  });

  describe('steps', () => {
    it('appends, inserts, moves and deletes steps keeping positions dense', async () => {
      const chain = await newChain({ name: 'Ordering' });
      const id = chain.id as string;
      const first = await newStep(id, inApp({ delay_seconds: 0 }));
      expect(first).toEqual({
        id: expect.any(String),
        chain_id: id,
        position: 0,
        delay_seconds: 0,
        target_type: 'org_admins',
        target_roster_id: null,
        target_member_id: null,
        target_role: null,
        channels: ['in_app'],
        created_at: t.clock.now().toISOString(),
        updated_at: t.clock.now().toISOString(),
      });
      expect((await get(`${steps(id)}/${first.id as string}`).expect(200)).body.data).toEqual(
        first,
      );
      const last = await newStep(id, inApp({ delay_seconds: 300, position: null }));
      const head = await newStep(id, inApp({ position: 0 }));
      const middle = await newStep(id, inApp({ position: 2 }));
      expect(last.position).toBe(1);
      expect(await positions(id)).toEqual([
        [head.id, 0],
        [first.id, 1],
        [middle.id, 2],
        [last.id, 3],
      ]);

      t.clock.advance({ seconds: 30 });
      const moved = await patch(`${steps(id)}/${head.id as string}`, { position: 3 }).expect(200);
      expect(moved.body.data).toEqual({
        ...head,
        position: 3,
        updated_at: t.clock.now().toISOString(),
      });
      expect((await get(steps(id))).body.data.map((s: Body) => s.id)).toEqual([
        first.id,
        middle.id,
        last.id,
        head.id,
      ]);
      await patch(`${steps(id)}/${last.id as string}`, { position: 0 }).expect(200);
      await del(`${steps(id)}/${middle.id as string}`).expect(204);
      expect(await positions(id)).toEqual([
        [last.id, 0],
        [first.id, 1],
        [head.id, 2],
      ]);
      expectStatus(await get(`${steps(id)}/${middle.id as string}`), 404, 'not_found');
      const shown = (await get(`${chains()}/${id}`).expect(200)).body.data as Body;
      expect((shown.steps as Body[]).map((s) => s.id)).toEqual([last.id, first.id, head.id]);
    });

    it('stores each target type with only its own field and channels in catalog order', async () => {
      const roster = await insertRoster(projectId);
      const chain = (await newChain({ name: 'Targets' })).id as string;
      const cases: Array<[Body, Body]> = [
        [{ target_type: 'roster_on_call', target_roster_id: roster }, {}],
        [{ target_type: 'roster_members', target_roster_id: roster }, {}],
        [{ target_type: 'member', target_member_id: viewer.accountId }, {}],
        [{ target_type: 'role', target_role: 'Member', target_roster_id: null }, {}],
        [{ target_type: 'org_admins', target_member_id: null }, {}],
        [
          { target_type: 'phone_contacts', target_roster_id: roster },
          { channels: ['sms', 'phone'] },
        ],
      ];
      for (const [target, extra] of cases) {
        const step = await newStep(chain, {
          channels: ['sms', 'email', 'in_app'],
          delay_seconds: 86400,
          ...target,
          ...extra,
        });
        expect(step).toMatchObject({
          target_type: target.target_type,
          target_roster_id: target.target_roster_id ?? null,
          target_member_id: target.target_member_id ?? null,
          target_role: target.target_role ?? null,
          channels: extra.channels ? ['phone', 'sms'] : ['in_app', 'email', 'sms'],
          delay_seconds: 86400,
        });
      }
    });

    it('accepts the deprecated roster as roster_members, stored and answered so', async () => {
      const roster = await insertRoster(projectId);
      const chain = (await newChain({ name: 'Alias' })).id as string;
      const step = await newStep(chain, {
        target_type: 'roster',
        target_roster_id: roster,
        channels: ['in_app'],
      });
      expect(step).toMatchObject({ target_type: 'roster_members', target_roster_id: roster });
      const path = `${steps(chain)}/${step.id as string}`;
      await patch(path, { target_type: 'org_admins', target_roster_id: null }).expect(200);
      const res = await patch(path, { target_type: 'roster', target_roster_id: roster }).expect(
        200,
      );
      expect(res.body.data).toMatchObject({ target_type: 'roster_members' });
      const [stored] = await db.query('SELECT target_type FROM escalation_step WHERE id = $1', [
        step.id,
      ]);
      expect(stored.target_type).toBe('roster_members');
    });

    it('changes the target with PATCH, clearing the previous type field', async () => {
      const roster = await insertRoster(projectId);
      const chain = (await newChain({ name: 'Retarget' })).id as string;
      const step = await newStep(chain, {
        target_type: 'roster_on_call',
        target_roster_id: roster,
        channels: ['phone'],
      });
      const path = `${steps(chain)}/${step.id as string}`;
      let res = await patch(path, { target_type: 'phone_contacts', channels: ['sms'] }).expect(200);
      expect(res.body.data).toMatchObject({ target_roster_id: roster, channels: ['sms'] });
      res = await patch(path, {
        target_type: 'member',
        target_member_id: developer.accountId,
      }).expect(200);
      expect(res.body.data).toMatchObject({
        target_type: 'member',
        target_roster_id: null,
        target_member_id: developer.accountId,
      });
      res = await patch(path, { delay_seconds: 45, channels: ['email', 'in_app'] }).expect(200);
      expect(res.body.data).toMatchObject({
        target_type: 'member',
        delay_seconds: 45,
        channels: ['in_app', 'email'],
      });
    });

    it('refuses bad steps with 422 naming each field, writing nothing', async () => {
      const roster = await insertRoster(projectId);
      const theirRoster = await insertRoster(otherProjectId);
      const chain = (await newChain({ name: 'Strict' })).id as string;
      const existing = await newStep(chain, inApp());
      const before = await count('escalation_step');
      const cases: Array<[Body, string[]]> = [
        [{ channels: ['in_app'] }, ['target_type']],
        [{ target_type: 'pager', channels: ['in_app'] }, ['target_type']],
        [{ target_type: 'org_admins' }, ['channels']],
        [{ target_type: 'org_admins', channels: [] }, ['channels']],
        [{ target_type: 'org_admins', channels: ['in_app', 'in_app'] }, ['channels']],
        [{ target_type: 'org_admins', channels: ['fax'] }, ['channels']],
        [{ target_type: 'org_admins', channels: 'in_app' }, ['channels']],
        [inApp({ delay_seconds: 86401 }), ['delay_seconds']],
        [inApp({ delay_seconds: -1 }), ['delay_seconds']],
        [inApp({ delay_seconds: null }), ['delay_seconds']],
        [inApp({ position: 2 }), ['position']],
        [inApp({ position: -1 }), ['position']],
        [inApp({ position: 0.5 }), ['position']],
        [inApp({ target_roster_id: roster }), ['target_roster_id']],
        [inApp({ target_member_id: 'nope' }), ['target_member_id']],
        [{ target_type: 'roster_on_call', channels: ['in_app'] }, ['target_roster_id']],
        [
          { target_type: 'roster_members', target_roster_id: MISSING, channels: ['in_app'] },
          ['target_roster_id'],
        ],
        [
          { target_type: 'roster_members', target_roster_id: theirRoster, channels: ['in_app'] },
          ['target_roster_id'],
        ],
        [{ target_type: 'member', channels: ['in_app'] }, ['target_member_id']],
        [
          { target_type: 'member', target_member_id: stranger.accountId, channels: ['in_app'] },
          ['target_member_id'],
        ],
        [
          {
            target_type: 'member',
            target_member_id: viewer.accountId,
            target_role: 'Admin',
            channels: ['in_app'],
          },
          ['target_role'],
        ],
        [{ target_type: 'role', channels: ['in_app'] }, ['target_role']],
        [{ target_type: 'role', target_role: 'Owner', channels: ['in_app'] }, ['target_role']],
        [
          {
            target_type: 'phone_contacts',
            target_roster_id: roster,
            channels: ['phone', 'in_app'],
          },
          ['channels'],
        ],
        [{ target_type: 'phone_contacts', channels: ['email'] }, ['target_roster_id', 'channels']],
      ];
      for (const [body, fields] of cases) expect422(await post(steps(chain), body), fields);

      const path = `${steps(chain)}/${existing.id as string}`;
      for (const [body, fields] of [
        [{ position: 1 }, ['position']],
        [{ position: null }, ['position']],
        [{ target_type: null }, ['target_type']],
        [{ channels: [] }, ['channels']],
        [{ target_type: 'roster_members' }, ['target_roster_id']],
        [{ target_roster_id: roster }, ['target_roster_id']],
        [{ target_type: 'phone_contacts', target_roster_id: roster }, ['channels']],
      ] as Array<[Body, string[]]>)
        expect422(await patch(path, body), fields);
      expect(await count('escalation_step')).toBe(before);
      expect((await get(path).expect(200)).body.data).toEqual(existing);
    });

    it('holds at most 20 steps per chain', async () => {
      const chain = (await newChain({ name: 'Long' })).id as string;
      for (let i = 0; i < 20; i += 1) await newStep(chain, inApp({ delay_seconds: i }));
      const res = await post(steps(chain), inApp());
      expect422(res, ['escalation_steps']);
      expect(res.body.message).toMatch(/at most 20 steps/);
      expect(await positions(chain)).toHaveLength(20);
    });

    it('answers 404 for a step of another chain, leaving it as it was', async () => {
      const mine = (await newChain({ name: 'Mine' })).id as string;
      const other = (await newChain({ name: 'Other' })).id as string;
      const step = await newStep(other, inApp());
      for (const id of [step.id as string, MISSING, 'not-a-uuid']) {
        const path = `${steps(mine)}/${id}`;
        for (const res of [await get(path), await patch(path, { position: 0 }), await del(path)])
          expectStatus(res, 404, 'not_found');
      }
      expect((await get(`${steps(other)}/${step.id as string}`).expect(200)).body.data).toEqual(
        step,
      );
    });
  });

  describe('clone', () => {
    it('copies the chain and its steps into an independent chain', async () => {
      const roster = await insertRoster(projectId);
      const source = await newChain({
        name: 'Original',
        description: 'day shift',
        re_escalation_after: 900,
        repeats: 2,
      });
      const sourceId = source.id as string;
      const a = await newStep(sourceId, inApp());
      const b = await newStep(sourceId, {
        target_type: 'phone_contacts',
        target_roster_id: roster,
        channels: ['phone'],
        delay_seconds: 120,
      });
      t.clock.advance({ minutes: 2 });
      const res = await post(`${chains()}/${sourceId}/clone`).expect(201);
      const copy = res.body.data as Body;
      const now = t.clock.now().toISOString();
      const stepCopy = (s: Body) => ({
        ...s,
        id: expect.any(String),
        chain_id: copy.id,
        created_at: now,
        updated_at: now,
      });
      expect(copy).toEqual({
        ...source,
        id: expect.any(String),
        name: 'Original (copy)',
        steps: [stepCopy(a), stepCopy(b)],
        created_at: now,
        updated_at: now,
      });
      expect(copy.id).not.toBe(sourceId);
      const copiedSteps = copy.steps as Body[];
      expect(copiedSteps.map((s) => s.id)).not.toContain(a.id);

      const copyId = copy.id as string;
      await patch(`${chains()}/${copyId}`, { name: 'Changed', repeats: 0 }).expect(200);
      await patch(`${steps(copyId)}/${copiedSteps[1].id as string}`, {
        channels: ['sms'],
        position: 0,
      }).expect(200);
      await del(`${steps(copyId)}/${copiedSteps[0].id as string}`).expect(204);
      await newStep(copyId, inApp({ delay_seconds: 5 }));
      expect((await get(`${chains()}/${sourceId}`).expect(200)).body.data).toEqual({
        ...source,
        steps: [a, b],
      });

      const named = await post(`${chains()}/${sourceId}/clone`, { name: 'Night shift' });
      expect(named.status).toBe(201);
      expect(named.body.data).toMatchObject({ name: 'Night shift', repeats: 2 });
      expect422(await post(`${chains()}/${sourceId}/clone`, { name: '' }), ['name']);
      expect422(await post(`${chains()}/${sourceId}/clone`, { name: null }), ['name']);
    });
  });

  describe('resolved_targets', () => {
    it('tells who each step would page now, accounts by name and contacts by label only', async () => {
      const project = await alertsProject(t, owner, 'resolving');
      const roster = await insertRoster(project, 'primary');
      const bare = await insertRoster(project, 'no rotation');
      await db.query(
        `INSERT INTO on_call_roster_member (roster_id, account_id, position, created_at, updated_at)
         VALUES ($1, $2, 0, now(), now()), ($1, $3, 1, now(), now()), ($4, $2, 0, now(), now())`,
        [roster, developer.accountId, restricted.accountId, bare],
      );
      // A daily rotation whose first handoff was yesterday at midnight UTC: the second member
      // holds today's shift, whatever the time of day.
      const yesterday = new Date(t.clock.now().getTime() - 86_400_000).toISOString().slice(0, 10);
      await db.query(
        `INSERT INTO on_call_rotation (roster_id, time_zone, start_date, handoff_time, shift_length, created_at, updated_at)
         VALUES ($1, 'UTC', $2, '00:00', 'daily', now(), now())`,
        [roster, yesterday],
      );
      await db.query(
        `INSERT INTO on_call_roster_phone_contact (roster_id, label, phone_number, created_at, updated_at)
         VALUES ($1, 'NOC', '+493012345678', now(), now()), ($1, 'Backup desk', '+493087654321', now(), now())`,
        [roster],
      );
      const chain = (await newChain({ name: 'Everyone' }, project)).id as string;
      const bodies: Body[] = [
        { target_type: 'roster_on_call', target_roster_id: roster, channels: ['in_app'] },
        { target_type: 'roster_members', target_roster_id: roster, channels: ['email'] },
        { target_type: 'member', target_member_id: viewer.accountId, channels: ['in_app'] },
        { target_type: 'role', target_role: 'Admin', channels: ['in_app'] },
        { target_type: 'role', target_role: 'Member', channels: ['in_app'] },
        { target_type: 'org_admins', channels: ['email', 'phone'] },
        {
          target_type: 'phone_contacts',
          target_roster_id: roster,
          channels: ['phone', 'sms'],
          delay_seconds: 600,
        },
        { target_type: 'roster_on_call', target_roster_id: bare, channels: ['in_app'] },
      ];
      const created: Body[] = [];
      for (const body of bodies) created.push(await newStep(chain, body, project));
      const account = (a: TestAccount) => ({
        type: 'account',
        account_id: a.accountId,
        name: a.login.split('@')[0],
      });
      const expected = [
        [account(restricted)],
        [account(developer), account(restricted)],
        [account(viewer)],
        [account(owner)],
        // Members who joined at the same instant come in no order worth pinning.
        expect.arrayContaining([account(developer), account(restricted), account(viewer)]),
        [account(owner)],
        [
          { type: 'phone_contact', label: 'Backup desk' },
          { type: 'phone_contact', label: 'NOC' },
        ],
        [],
      ];

      const res = await get(`${chains(project)}/${chain}/resolved_targets`).expect(200);
      expect(res.body.data).toEqual(
        created.map((step, i) => ({
          step_id: step.id,
          position: i,
          delay_seconds: step.delay_seconds,
          target_type: step.target_type,
          channels: step.channels,
          recipients: expected[i],
        })),
      );
      expect((res.body.data as Array<{ recipients: Body[] }>)[4].recipients).toHaveLength(3);
      expect(JSON.stringify(res.body)).not.toMatch(/\+49/);

      const empty = (await newChain({ name: 'Empty' }, project)).id as string;
      expect(
        (await get(`${chains(project)}/${empty}/resolved_targets`).expect(200)).body.data,
      ).toEqual([]);
    });
  });

  describe('access', () => {
    it('lets a viewer read chains, steps and resolved targets, and change nothing', async () => {
      const chain = (await newChain({ name: 'Viewed' })).id as string;
      const step = (await newStep(chain, inApp())).id as string;
      for (const path of [
        chains(),
        `${chains()}/${chain}`,
        `${chains()}/${chain}/resolved_targets`,
        steps(chain),
        `${steps(chain)}/${step}`,
      ])
        await get(path, viewer.jwt).expect(200);
      for (const res of [
        await post(chains(), { name: 'x' }, viewer.jwt),
        await patch(`${chains()}/${chain}`, { name: 'x' }, viewer.jwt),
        await del(`${chains()}/${chain}`, viewer.jwt),
        await post(`${chains()}/${chain}/clone`, {}, viewer.jwt),
        await post(steps(chain), inApp(), viewer.jwt),
        await patch(`${steps(chain)}/${step}`, { delay_seconds: 1 }, viewer.jwt),
        await del(`${steps(chain)}/${step}`, viewer.jwt),
      ])
        expectStatus(res, 403, 'forbidden');
    });

    it('needs alerts:delete to create, clone or delete a chain, and to delete a step', async () => {
      const before = await count('escalation_chain');
      const denied = await post(chains(), { name: 'x' }, restricted.jwt);
      expectStatus(denied, 403, 'forbidden');
      expect(denied.body.message).toMatch(/alerts:delete/);
      expect(await count('escalation_chain')).toBe(before);

      const chain = (await post(chains(), { name: 'By dev' }, developer.jwt).expect(201)).body.data
        .id as string;
      await patch(`${chains()}/${chain}`, { name: 'By restricted' }, restricted.jwt).expect(200);
      const step = (await post(steps(chain), inApp(), restricted.jwt).expect(201)).body.data
        .id as string;
      await patch(`${steps(chain)}/${step}`, { delay_seconds: 5 }, restricted.jwt).expect(200);
      for (const res of [
        await del(`${steps(chain)}/${step}`, restricted.jwt),
        await post(`${chains()}/${chain}/clone`, {}, restricted.jwt),
        await del(`${chains()}/${chain}`, restricted.jwt),
      ])
        expectStatus(res, 403, 'forbidden');
      await get(`${chains()}/${chain}/resolved_targets`, restricted.jwt).expect(200);
      await post(`${chains()}/${chain}/clone`, {}, developer.jwt).expect(201);
      await del(`${steps(chain)}/${step}`, developer.jwt).expect(204);
      await del(`${chains()}/${chain}`, developer.jwt).expect(204);
    });

    it('scopes tokens to escalation_chains and escalation_steps: read, write, manage', async () => {
      const chain = (await newChain({ name: 'Tokens' })).id as string;
      const step = (await newStep(chain, inApp())).id as string;
      const token = (scopes: string[]) => mintToken(t, owner.jwt, scopes);
      const read = await token(['escalation_chains:read']);
      const write = await token(['escalation_chains:write']);
      const manage = await token(['escalation_chains:manage']);
      const stepsWrite = await token(['escalation_steps:write']);
      const alerts = await token(['alerts:*']);
      const insufficient = (res: Res) => expectStatus(res, 403, 'insufficient_scope');

      await get(`${chains()}/${chain}/resolved_targets`, read).expect(200);
      await get(chains(), read).expect(200);
      insufficient(await post(`${chains()}/${chain}/clone`, {}, read));
      insufficient(await post(chains(), { name: 'x' }, read));
      insufficient(await get(steps(chain), read));

      await post(chains(), { name: 'By token' }, write).expect(201);
      await patch(`${chains()}/${chain}`, { description: 'by token' }, write).expect(200);
      insufficient(await post(`${chains()}/${chain}/clone`, {}, write));
      insufficient(await del(`${chains()}/${chain}`, write));

      await post(steps(chain), inApp(), stepsWrite).expect(201);
      await patch(`${steps(chain)}/${step}`, { delay_seconds: 9 }, stepsWrite).expect(200);
      insufficient(await del(`${steps(chain)}/${step}`, stepsWrite));
      insufficient(await get(chains(), stepsWrite));
      for (const res of [await get(chains(), alerts), await get(steps(chain), alerts)])
        insufficient(res);

      const copy = (await post(`${chains()}/${chain}/clone`, {}, manage).expect(201)).body.data;
      await del(`${chains()}/${copy.id as string}`, manage).expect(204);
    });

    it('answers 403 alerts_capability_not_enabled on every route of a project without the grant', async () => {
      const base = chains(bareProjectId);
      const chain = `${base}/${MISSING}`;
      const step = `${steps(MISSING, bareProjectId)}/${MISSING}`;
      for (const res of [
        await get(base),
        await post(base, { name: 'x' }),
        await get(chain),
        await patch(chain, { name: 'x' }),
        await del(chain),
        await post(`${chain}/clone`),
        await get(`${chain}/resolved_targets`),
        await get(steps(MISSING, bareProjectId)),
        await post(steps(MISSING, bareProjectId), inApp()),
        await get(step),
        await patch(step, { delay_seconds: 1 }),
        await del(step),
      ])
        expectStatus(res, 403, 'alerts_capability_not_enabled');
      expect(
        await db.query('SELECT 1 FROM escalation_chain WHERE project_id = $1', [bareProjectId]),
      ).toEqual([]);
    });
  });
});
