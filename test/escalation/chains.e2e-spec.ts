import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import type { CreateChainBody } from '../../libs/escalation/src/chains/chains.dto.js';
import type {
  CreateStepBody,
  UpdateStepBody,
} from '../../libs/escalation/src/chains/escalation-steps.dto.js';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertingTeam, alertsProject } from '../support/alerting.js';
import { api, type Credential, expectError, type Loose } from '../support/clients/index.js';
import { mintToken, type TestAccount } from '../support/identity.js';

type Body = Record<string, unknown>;

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

  const chains = (project = projectId, who: Credential = owner) =>
    api(t).as(who).escalationChains(project);
  const steps = (chainId: string, project = projectId, who: Credential = owner) =>
    api(t).as(who).escalationSteps(project, chainId);
  const inApp = (extra: Partial<CreateStepBody> = {}): CreateStepBody => ({
    target_type: 'org_admins',
    channels: ['in_app'],
    ...extra,
  });
  const positions = async (chainId: string) =>
    (await steps(chainId).list()).map((s) => [s.id, s.position]);
  const count = async (table: string) =>
    (await db.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM ${table}`))[0].n;
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
      const res = await chains(project).raw.create({ name: 'Primary' }).expect(201);
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
      expect(await chains(project).show(primary.id as string)).toEqual(primary);
      const backup = await chains(project).create({
        name: 'Backup',
        description: 'nights',
        re_escalation_after: 600,
        repeats: 3,
      });
      expect(backup).toMatchObject({ description: 'nights', re_escalation_after: 600, repeats: 3 });
      const step = await steps(backup.id, project).create(inApp());
      expect(await chains(project).list()).toEqual([{ ...backup, steps: [step] }, primary]);
    });

    it('updates only the fields sent; null clears description and re_escalation_after', async () => {
      const chain = await chains().create({
        name: 'Update me',
        description: 'd',
        re_escalation_after: 3600,
        repeats: 2,
      });
      t.clock.advance({ minutes: 1 });
      let updated = await chains().update(chain.id, { repeats: 10, re_escalation_after: 60 });
      expect(updated).toEqual({
        ...chain,
        repeats: 10,
        re_escalation_after: 60,
        updated_at: t.clock.now().toISOString(),
      });
      updated = await chains().update(chain.id, {
        name: 'Renamed',
        description: null,
        re_escalation_after: null,
      });
      expect(updated).toMatchObject({
        name: 'Renamed',
        description: '',
        re_escalation_after: null,
        repeats: 10,
      });
    });

    it('refuses bad fields with 422 naming each one, writing nothing', async () => {
      const before = await count('escalation_chain');
      const cases: Array<[Loose<CreateChainBody>, string[]]> = [
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
      for (const [body, fields] of cases)
        expectError(await chains().raw.create(body), 422, 'validation_failed', fields);
      expect(await count('escalation_chain')).toBe(before);

      const chain = await chains().create({ name: 'Stays', repeats: 1 });
      const { raw } = chains();
      expectError(await raw.update(chain.id, { name: null }), 422, 'validation_failed', ['name']);
      expectError(
        await raw.update(chain.id, { repeats: null, re_escalation_after: 30 }),
        422,
        'validation_failed',
        ['re_escalation_after', 'repeats'],
      );
      expect(await chains().show(chain.id)).toEqual(chain);
    });

    it('deletes a chain and its steps; routes keep existing unreferenced, instances keep their snapshot', async () => {
      const chain = await chains().create({ name: 'Doomed' });
      const step = await steps(chain.id).create(inApp());
      const routes = api(t).as(owner).alertRoutes(projectId);
      const route = await routes.create({ priority: 1, escalation_chain_id: chain.id });
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

      await chains().delete(chain.id);
      expectError(await chains().raw.show(chain.id), 404, 'not_found');
      expect(await db.query('SELECT 1 FROM escalation_step WHERE id = $1', [step.id])).toEqual([]);
      expect(await routes.show(route.id)).toMatchObject({
        id: route.id,
        escalation_chain_id: null,
      });
      const [kept] = await db.query<Array<{ chain_id: string | null; chain_snapshot: Body }>>(
        'SELECT chain_id, chain_snapshot FROM escalation_instance WHERE id = $1',
        [instance.id],
      );
      expect(kept.chain_id).toBeNull();
      expect(kept.chain_snapshot).toMatchObject({ ...snapshot, steps: [{ id: step.id }] });
      expectError(await chains().raw.delete(chain.id), 404, 'not_found');
      await routes.delete(route.id);
    });

    it("answers 404 for unknown, malformed and another project's chain ids, changing nothing", async () => {
      const theirs = await chains(otherProjectId).create({ name: 'Theirs' });
      const theirStep = await steps(theirs.id, otherProjectId).create(inApp());
      const { raw } = chains();
      for (const id of [MISSING, 'not-a-uuid', theirs.id]) {
        const stepsOfId = steps(id).raw;
        for (const res of [
          await raw.show(id),
          await raw.update(id, { name: 'hijacked' }),
          await raw.delete(id),
          await raw.clone(id, {}),
          await raw.resolvedTargets(id),
          await stepsOfId.list(),
          await stepsOfId.create(inApp()),
          await stepsOfId.show(theirStep.id),
          await stepsOfId.update(theirStep.id, { delay_seconds: 9 }),
          await stepsOfId.delete(theirStep.id),
        ])
          expectError(res, 404, 'not_found');
      }
      const shown = await chains(otherProjectId).show(theirs.id);
      expect(shown).toEqual({ ...theirs, steps: [theirStep] });
    });
  });

  describe('steps', () => {
    it('appends, inserts, moves and deletes steps keeping positions dense', async () => {
      const chain = await chains().create({ name: 'Ordering' });
      const id = chain.id;
      const ordering = steps(id);
      const first = await ordering.create(inApp({ delay_seconds: 0 }));
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
      expect(await ordering.show(first.id)).toEqual(first);
      const last = await ordering.create(inApp({ delay_seconds: 300, position: null }));
      const head = await ordering.create(inApp({ position: 0 }));
      const middle = await ordering.create(inApp({ position: 2 }));
      expect(last.position).toBe(1);
      expect(await positions(id)).toEqual([
        [head.id, 0],
        [first.id, 1],
        [middle.id, 2],
        [last.id, 3],
      ]);

      t.clock.advance({ seconds: 30 });
      const moved = await ordering.update(head.id, { position: 3 });
      expect(moved).toEqual({
        ...head,
        position: 3,
        updated_at: t.clock.now().toISOString(),
      });
      expect((await ordering.list()).map((s) => s.id)).toEqual([
        first.id,
        middle.id,
        last.id,
        head.id,
      ]);
      await ordering.update(last.id, { position: 0 });
      await ordering.delete(middle.id);
      expect(await positions(id)).toEqual([
        [last.id, 0],
        [first.id, 1],
        [head.id, 2],
      ]);
      expectError(await ordering.raw.show(middle.id), 404, 'not_found');
      const shown = await chains().show(id);
      expect(shown.steps.map((s) => s.id)).toEqual([last.id, first.id, head.id]);
    });

    it('stores each target type with only its own field and channels in catalog order', async () => {
      const roster = await insertRoster(projectId);
      const chain = (await chains().create({ name: 'Targets' })).id;
      const cases: Array<[Omit<CreateStepBody, 'channels'>, Partial<CreateStepBody>]> = [
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
        const step = await steps(chain).create({
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
      const chain = (await chains().create({ name: 'Alias' })).id;
      // The deprecated alias is accepted but not documented, so it goes through raw.
      const { raw, update } = steps(chain);
      const step = (
        await raw
          .create({ target_type: 'roster', target_roster_id: roster, channels: ['in_app'] })
          .expect(201)
      ).body.data as Body;
      expect(step).toMatchObject({ target_type: 'roster_members', target_roster_id: roster });
      const stepId = step.id as string;
      await update(stepId, { target_type: 'org_admins', target_roster_id: null });
      const res = await raw
        .update(stepId, { target_type: 'roster', target_roster_id: roster })
        .expect(200);
      expect(res.body.data).toMatchObject({ target_type: 'roster_members' });
      const [stored] = await db.query('SELECT target_type FROM escalation_step WHERE id = $1', [
        step.id,
      ]);
      expect(stored.target_type).toBe('roster_members');
    });

    it('changes the target with PATCH, clearing the previous type field', async () => {
      const roster = await insertRoster(projectId);
      const chain = (await chains().create({ name: 'Retarget' })).id;
      const { create, update } = steps(chain);
      const step = await create({
        target_type: 'roster_on_call',
        target_roster_id: roster,
        channels: ['phone'],
      });
      let changed = await update(step.id, { target_type: 'phone_contacts', channels: ['sms'] });
      expect(changed).toMatchObject({ target_roster_id: roster, channels: ['sms'] });
      changed = await update(step.id, {
        target_type: 'member',
        target_member_id: developer.accountId,
      });
      expect(changed).toMatchObject({
        target_type: 'member',
        target_roster_id: null,
        target_member_id: developer.accountId,
      });
      changed = await update(step.id, { delay_seconds: 45, channels: ['email', 'in_app'] });
      expect(changed).toMatchObject({
        target_type: 'member',
        delay_seconds: 45,
        channels: ['in_app', 'email'],
      });
    });

    it('refuses bad steps with 422 naming each field, writing nothing', async () => {
      const roster = await insertRoster(projectId);
      const theirRoster = await insertRoster(otherProjectId);
      const chain = (await chains().create({ name: 'Strict' })).id;
      const { create, show, raw } = steps(chain);
      const existing = await create(inApp());
      const before = await count('escalation_step');
      const cases: Array<[Loose<CreateStepBody>, string[]]> = [
        [{ channels: ['in_app'] }, ['target_type']],
        [{ target_type: 'pager', channels: ['in_app'] }, ['target_type']],
        [{ target_type: 'org_admins' }, ['channels']],
        [{ target_type: 'org_admins', channels: [] }, ['channels']],
        [{ target_type: 'org_admins', channels: ['in_app', 'in_app'] }, ['channels']],
        [{ target_type: 'org_admins', channels: ['fax'] }, ['channels']],
        [{ target_type: 'org_admins', channels: 'in_app' }, ['channels']],
        [inApp({ delay_seconds: 86401 }), ['delay_seconds']],
        [inApp({ delay_seconds: -1 }), ['delay_seconds']],
        [{ ...inApp(), delay_seconds: null }, ['delay_seconds']],
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
      for (const [body, fields] of cases)
        expectError(await raw.create(body), 422, 'validation_failed', fields);

      const updates: Array<[Loose<UpdateStepBody>, string[]]> = [
        [{ position: 1 }, ['position']],
        [{ position: null }, ['position']],
        [{ target_type: null }, ['target_type']],
        [{ channels: [] }, ['channels']],
        [{ target_type: 'roster_members' }, ['target_roster_id']],
        [{ target_roster_id: roster }, ['target_roster_id']],
        [{ target_type: 'phone_contacts', target_roster_id: roster }, ['channels']],
      ];
      for (const [body, fields] of updates)
        expectError(await raw.update(existing.id, body), 422, 'validation_failed', fields);
      expect(await count('escalation_step')).toBe(before);
      expect(await show(existing.id)).toEqual(existing);
    });

    it('holds at most 20 steps per chain', async () => {
      const chain = (await chains().create({ name: 'Long' })).id;
      for (let i = 0; i < 20; i += 1) await steps(chain).create(inApp({ delay_seconds: i }));
      const res = await steps(chain).raw.create(inApp());
      const envelope = expectError(res, 422, 'validation_failed', ['escalation_steps']);
      expect(envelope.message).toMatch(/at most 20 steps/);
      expect(await positions(chain)).toHaveLength(20);
    });

    it('answers 404 for a step of another chain, leaving it as it was', async () => {
      const mine = (await chains().create({ name: 'Mine' })).id;
      const other = (await chains().create({ name: 'Other' })).id;
      const step = await steps(other).create(inApp());
      const { raw } = steps(mine);
      for (const id of [step.id, MISSING, 'not-a-uuid']) {
        for (const res of [
          await raw.show(id),
          await raw.update(id, { position: 0 }),
          await raw.delete(id),
        ])
          expectError(res, 404, 'not_found');
      }
      expect(await steps(other).show(step.id)).toEqual(step);
    });
  });

  describe('clone', () => {
    it('copies the chain and its steps into an independent chain', async () => {
      const roster = await insertRoster(projectId);
      const source = await chains().create({
        name: 'Original',
        description: 'day shift',
        re_escalation_after: 900,
        repeats: 2,
      });
      const sourceId = source.id;
      const a = await steps(sourceId).create(inApp());
      const b = await steps(sourceId).create({
        target_type: 'phone_contacts',
        target_roster_id: roster,
        channels: ['phone'],
        delay_seconds: 120,
      });
      t.clock.advance({ minutes: 2 });
      const copy = await chains().clone(sourceId, {});
      const now = t.clock.now().toISOString();
      const stepCopy = (s: typeof a) => ({
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
      const copiedSteps = copy.steps;
      expect(copiedSteps.map((s) => s.id)).not.toContain(a.id);

      const copyId = copy.id;
      await chains().update(copyId, { name: 'Changed', repeats: 0 });
      await steps(copyId).update(copiedSteps[1].id, { channels: ['sms'], position: 0 });
      await steps(copyId).delete(copiedSteps[0].id);
      await steps(copyId).create(inApp({ delay_seconds: 5 }));
      expect(await chains().show(sourceId)).toEqual({ ...source, steps: [a, b] });

      const named = await chains().clone(sourceId, { name: 'Night shift' });
      expect(named).toMatchObject({ name: 'Night shift', repeats: 2 });
      const { raw } = chains();
      expectError(await raw.clone(sourceId, { name: '' }), 422, 'validation_failed', ['name']);
      expectError(await raw.clone(sourceId, { name: null }), 422, 'validation_failed', ['name']);
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
      const chain = (await chains(project).create({ name: 'Everyone' })).id;
      const bodies: CreateStepBody[] = [
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
      const created = [];
      for (const body of bodies) created.push(await steps(chain, project).create(body));
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

      // The whole answer, to see that no phone number is in it.
      const res = await chains(project).raw.resolvedTargets(chain).expect(200);
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

      const empty = (await chains(project).create({ name: 'Empty' })).id;
      expect(await chains(project).resolvedTargets(empty)).toEqual([]);
    });
  });

  describe('access', () => {
    it('lets a viewer read chains, steps and resolved targets, and change nothing', async () => {
      const chain = (await chains().create({ name: 'Viewed' })).id;
      const step = (await steps(chain).create(inApp())).id;
      const viewerChains = chains(projectId, viewer);
      const viewerSteps = steps(chain, projectId, viewer);
      await viewerChains.list();
      await viewerChains.show(chain);
      await viewerChains.resolvedTargets(chain);
      await viewerSteps.list();
      await viewerSteps.show(step);
      for (const res of [
        await viewerChains.raw.create({ name: 'x' }),
        await viewerChains.raw.update(chain, { name: 'x' }),
        await viewerChains.raw.delete(chain),
        await viewerChains.raw.clone(chain, {}),
        await viewerSteps.raw.create(inApp()),
        await viewerSteps.raw.update(step, { delay_seconds: 1 }),
        await viewerSteps.raw.delete(step),
      ])
        expectError(res, 403, 'forbidden');
    });

    it('needs alerts:delete to create, clone or delete a chain, and to delete a step', async () => {
      const before = await count('escalation_chain');
      const denied = await chains(projectId, restricted).raw.create({ name: 'x' });
      expect(expectError(denied, 403, 'forbidden').message).toMatch(/alerts:delete/);
      expect(await count('escalation_chain')).toBe(before);

      const chain = (await chains(projectId, developer).create({ name: 'By dev' })).id;
      const restrictedChains = chains(projectId, restricted);
      const restrictedSteps = steps(chain, projectId, restricted);
      await restrictedChains.update(chain, { name: 'By restricted' });
      const step = (await restrictedSteps.create(inApp())).id;
      await restrictedSteps.update(step, { delay_seconds: 5 });
      for (const res of [
        await restrictedSteps.raw.delete(step),
        await restrictedChains.raw.clone(chain, {}),
        await restrictedChains.raw.delete(chain),
      ])
        expectError(res, 403, 'forbidden');
      await restrictedChains.resolvedTargets(chain);
      await chains(projectId, developer).clone(chain, {});
      await steps(chain, projectId, developer).delete(step);
      await chains(projectId, developer).delete(chain);
    });

    it('scopes tokens to escalation_chains and escalation_steps: read, write, manage', async () => {
      const chain = (await chains().create({ name: 'Tokens' })).id;
      const step = (await steps(chain).create(inApp())).id;
      const token = (scopes: string[]) => mintToken(t, owner.jwt, scopes);
      const read = await token(['escalation_chains:read']);
      const write = await token(['escalation_chains:write']);
      const manage = await token(['escalation_chains:manage']);
      const stepsWrite = await token(['escalation_steps:write']);
      const alerts = await token(['alerts:*']);
      const insufficientScope = 'insufficient_scope';

      await chains(projectId, read).resolvedTargets(chain);
      await chains(projectId, read).list();
      expectError(await chains(projectId, read).raw.clone(chain, {}), 403, insufficientScope);
      expectError(await chains(projectId, read).raw.create({ name: 'x' }), 403, insufficientScope);
      expectError(await steps(chain, projectId, read).raw.list(), 403, insufficientScope);

      await chains(projectId, write).create({ name: 'By token' });
      await chains(projectId, write).update(chain, { description: 'by token' });
      expectError(await chains(projectId, write).raw.clone(chain, {}), 403, insufficientScope);
      expectError(await chains(projectId, write).raw.delete(chain), 403, insufficientScope);

      await steps(chain, projectId, stepsWrite).create(inApp());
      await steps(chain, projectId, stepsWrite).update(step, { delay_seconds: 9 });
      expectError(
        await steps(chain, projectId, stepsWrite).raw.delete(step),
        403,
        insufficientScope,
      );
      expectError(await chains(projectId, stepsWrite).raw.list(), 403, insufficientScope);
      for (const res of [
        await chains(projectId, alerts).raw.list(),
        await steps(chain, projectId, alerts).raw.list(),
      ])
        expectError(res, 403, insufficientScope);

      const copy = await chains(projectId, manage).clone(chain, {});
      await chains(projectId, manage).delete(copy.id);
    });

    it('answers 403 alerts_capability_not_enabled on every route of a project without the grant', async () => {
      const bareChains = chains(bareProjectId).raw;
      const bareSteps = steps(MISSING, bareProjectId).raw;
      for (const res of [
        await bareChains.list(),
        await bareChains.create({ name: 'x' }),
        await bareChains.show(MISSING),
        await bareChains.update(MISSING, { name: 'x' }),
        await bareChains.delete(MISSING),
        await bareChains.clone(MISSING, {}),
        await bareChains.resolvedTargets(MISSING),
        await bareSteps.list(),
        await bareSteps.create(inApp()),
        await bareSteps.show(MISSING),
        await bareSteps.update(MISSING, { delay_seconds: 1 }),
        await bareSteps.delete(MISSING),
      ])
        expectError(res, 403, 'alerts_capability_not_enabled');
      expect(
        await db.query('SELECT 1 FROM escalation_chain WHERE project_id = $1', [bareProjectId]),
      ).toEqual([]);
    });
  });
});
