import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { SuppressionService } from '@platform/alerting';
import { DataSource } from 'typeorm';
import { createApiTestApp } from '../support/api-app.js';
import { seedAccount, seedMember } from '../support/factories.js';
import { alertsProject, createProject } from '../support/alerting.js';
import { bearer, mintToken, type TestAccount } from '../support/identity.js';

type Row = Record<string, unknown>;

const SILENCE_FIELDS = [
  'active',
  'alert_id',
  'comment',
  'created_at',
  'created_by',
  'ends_at',
  'id',
  'starts_at',
];

const WINDOW_FIELDS = [
  'active',
  'created_at',
  'created_by',
  'ends_at',
  'id',
  'matchers',
  'name',
  'project_id',
  'starts_at',
  'updated_at',
];

describe('suppression: silences and maintenance windows', () => {
  let t: TestApp;
  let db: DataSource;
  let owner: TestAccount;
  let operator: TestAccount;
  let viewer: TestAccount;
  let stranger: TestAccount;
  let projectId: string;
  let siblingProjectId: string;
  let strangerProjectId: string;
  let ungrantedProjectId: string;

  /** Inserts an alert directly (ingest is not what is under test here); returns its id. */
  const seed = async (
    project: string,
    fingerprint: string,
    labels: Record<string, string> = {},
  ): Promise<string> => {
    const now = t.clock.now();
    const rows: Array<{ id: string }> = await db.query(
      `INSERT INTO alert (project_id, fingerprint, status, severity, labels, annotations,
                          starts_at, generator_url, last_received_at, created_at, updated_at)
       VALUES ($1, $2, 'firing', 'critical', $3::jsonb, '{}', $4, '', $4, $4, $4)
       RETURNING id`,
      [project, fingerprint, JSON.stringify({ severity: 'critical', ...labels }), now],
    );
    return rows[0].id;
  };

  const inMinutes = (minutes: number) =>
    new Date(t.clock.now().getTime() + minutes * 60_000).toISOString();

  const silences = (alertId: string, project = projectId) =>
    `/projects/${project}/alerts/${alertId}/silences`;
  const windows = (project = projectId) => `/projects/${project}/maintenance_windows`;

  const silenceCount = async (alertId: string) =>
    Number(
      (
        (await db.query('SELECT count(*) AS n FROM alert_silence WHERE alert_id = $1', [
          alertId,
        ])) as Array<{ n: string }>
      )[0].n,
    );

  const windowRows = async (project = projectId): Promise<Row[]> =>
    db.query('SELECT * FROM maintenance_window WHERE project_id = $1 ORDER BY created_at', [
      project,
    ]);

  const expectValidation = (res: { body: Row }, fields: string[]) => {
    expect(res.body.code).toBe('validation_failed');
    const details = res.body.details as { fields: Array<{ field: string }> };
    expect(details.fields.map((f) => f.field).sort()).toEqual([...fields].sort());
  };

  beforeAll(async () => {
    t = await createApiTestApp({ withWorker: true });
    db = t.get(DataSource);
    owner = await seedAccount(t, 'owner@example.com', 'Suppression Org');
    operator = await seedMember(t, owner, 'operator@example.com', 'operator');
    viewer = await seedMember(t, owner, 'viewer@example.com', 'viewer');
    stranger = await seedAccount(t, 'stranger@example.com', 'Stranger Org');
    projectId = await alertsProject(t, owner, 'production');
    siblingProjectId = await alertsProject(t, owner, 'staging');
    strangerProjectId = await alertsProject(t, stranger, 'theirs');
    ungrantedProjectId = await createProject(t, owner, 'no-alerts');
  });

  afterAll(async () => {
    await t.close();
  });

  describe('silences', () => {
    let alertId: string;
    let siblingAlertId: string;
    let strangerAlertId: string;
    let silenceId: string;

    beforeAll(async () => {
      alertId = await seed(projectId, 'silence-me');
      siblingAlertId = await seed(siblingProjectId, 'sibling');
      strangerAlertId = await seed(strangerProjectId, 'stranger');
    });

    it('creates a silence from now until ends_at: 201', async () => {
      const endsAt = inMinutes(60);
      const res = await t
        .request()
        .post(silences(alertId))
        .set(bearer(operator.jwt))
        .send({ ends_at: endsAt, comment: '  Known issue, fix rolling out  ' })
        .expect(201);
      const silence = res.body.data as Row;
      expect(Object.keys(silence).sort()).toEqual(SILENCE_FIELDS);
      expect(silence).toEqual({
        id: expect.any(String),
        alert_id: alertId,
        starts_at: t.clock.now().toISOString(),
        ends_at: endsAt,
        comment: 'Known issue, fix rolling out',
        created_by: { id: operator.accountId, name: 'operator' },
        created_at: t.clock.now().toISOString(),
        active: true,
      });
      silenceId = silence.id as string;
    });

    it.each<[string, Row, string[]]>([
      ['no body', {}, ['ends_at', 'comment']],
      ['no comment', { ends_at: '2999-01-01T00:00:00Z' }, ['comment']],
      ['an empty comment', { ends_at: '2999-01-01T00:00:00Z', comment: '' }, ['comment']],
      ['a blank comment', { ends_at: '2999-01-01T00:00:00Z', comment: '   ' }, ['comment']],
      ['a comment that is no string', { ends_at: '2999-01-01T00:00:00Z', comment: 5 }, ['comment']],
      ['no ends_at', { comment: 'x' }, ['ends_at']],
      [
        'a NUL in the comment',
        { ends_at: '2999-01-01T00:00:00Z', comment: 'a\u0000b' },
        ['comment'],
      ],
      ['an ends_at that is no date', { ends_at: 'tomorrow', comment: 'x' }, ['ends_at']],
    ])('refuses %s with 422 validation_failed', async (_, body, fields) => {
      const before = await silenceCount(alertId);
      const res = await t
        .request()
        .post(silences(alertId))
        .set(bearer(owner.jwt))
        .send(body)
        .expect(422);
      expectValidation(res, fields);
      expect(await silenceCount(alertId)).toBe(before);
    });

    it('refuses an ends_at that is not in the future', async () => {
      const before = await silenceCount(alertId);
      for (const endsAt of [inMinutes(-1), t.clock.now().toISOString()]) {
        const res = await t
          .request()
          .post(silences(alertId))
          .set(bearer(owner.jwt))
          .send({ ends_at: endsAt, comment: 'too late' })
          .expect(422);
        expectValidation(res, ['ends_at']);
      }
      expect(await silenceCount(alertId)).toBe(before);
    });

    it('lists the alert silences, newest first, active or not', async () => {
      t.clock.advance({ minutes: 1 });
      const second = await t
        .request()
        .post(silences(alertId))
        .set(bearer(owner.jwt))
        .send({ ends_at: inMinutes(5), comment: 'short one' })
        .expect(201);
      const res = await t.request().get(silences(alertId)).set(bearer(viewer.jwt)).expect(200);
      expect(res.body.data.map((s: Row) => s.id)).toEqual([second.body.data.id, silenceId]);
      expect(res.body.metadata).toMatchObject({ count: 2 });
      t.clock.advance({ minutes: 10 });
      const later = await t.request().get(silences(alertId)).set(bearer(owner.jwt)).expect(200);
      expect(later.body.data.map((s: Row) => s.active)).toEqual([false, true]);
    });

    it('expires a silence on DELETE: 204, kept as inactive history', async () => {
      t.clock.advance({ minutes: 1 });
      const expiredAt = t.clock.now().toISOString();
      const res = await t
        .request()
        .delete(`${silences(alertId)}/${silenceId}`)
        .set(bearer(owner.jwt))
        .expect(204);
      expect(res.body).toEqual({});
      const list = await t.request().get(silences(alertId)).set(bearer(owner.jwt)).expect(200);
      const expired = (list.body.data as Row[]).find((s) => s.id === silenceId)!;
      expect(expired).toMatchObject({ active: false, ends_at: expiredAt });
    });

    it('expiring again changes nothing and still answers 204', async () => {
      t.clock.advance({ minutes: 1 });
      await t
        .request()
        .delete(`${silences(alertId)}/${silenceId}`)
        .set(bearer(owner.jwt))
        .expect(204);
      const rows: Row[] = await db.query('SELECT ends_at FROM alert_silence WHERE id = $1', [
        silenceId,
      ]);
      expect((rows[0].ends_at as Date).toISOString()).toBe(
        new Date(t.clock.now().getTime() - 60_000).toISOString(),
      );
    });

    it('answers 404 for a silence of another alert, an unknown one and other projects', async () => {
      const otherAlertId = await seed(projectId, 'other-alert');
      for (const path of [
        `${silences(otherAlertId)}/${silenceId}`,
        `${silences(alertId)}/00000000-0000-4000-8000-000000000001`,
        `${silences(alertId)}/not-a-uuid`,
      ]) {
        const res = await t.request().delete(path).set(bearer(owner.jwt)).expect(404);
        expect(res.body.code).toBe('not_found');
      }
      for (const id of [siblingAlertId, strangerAlertId]) {
        const created = await t
          .request()
          .post(silences(id))
          .set(bearer(owner.jwt))
          .send({ ends_at: inMinutes(5), comment: 'not mine' })
          .expect(404);
        expect(created.body.code).toBe('not_found');
        await t.request().get(silences(id)).set(bearer(owner.jwt)).expect(404);
        expect(await silenceCount(id)).toBe(0);
      }
      await t
        .request()
        .get(silences(strangerAlertId, strangerProjectId))
        .set(bearer(owner.jwt))
        .expect(404);
    });

    it('lets a viewer read but not silence or expire', async () => {
      const post = await t
        .request()
        .post(silences(alertId))
        .set(bearer(viewer.jwt))
        .send({ ends_at: inMinutes(5), comment: 'viewer' })
        .expect(403);
      expect(post.body.code).toBe('forbidden');
      await t
        .request()
        .delete(`${silences(alertId)}/${silenceId}`)
        .set(bearer(viewer.jwt))
        .expect(403);
    });

    it('is its own scope resource for static tokens', async () => {
      const alertsToken = await mintToken(t, owner.jwt, ['alerts:*']);
      const denied = await t
        .request()
        .post(silences(alertId))
        .set(bearer(alertsToken))
        .send({ ends_at: inMinutes(5), comment: 'token' })
        .expect(403);
      expect(denied.body.code).toBe('insufficient_scope');
      const writer = await mintToken(t, owner.jwt, ['alert_silences:write']);
      const created = await t
        .request()
        .post(silences(alertId))
        .set(bearer(writer))
        .send({ ends_at: inMinutes(5), comment: 'token' })
        .expect(201);
      const cannotExpire = await t
        .request()
        .delete(`${silences(alertId)}/${created.body.data.id}`)
        .set(bearer(writer))
        .expect(403);
      expect(cannotExpire.body.code).toBe('insufficient_scope');
      const manager = await mintToken(t, owner.jwt, ['alert_silences:manage']);
      await t
        .request()
        .delete(`${silences(alertId)}/${created.body.data.id}`)
        .set(bearer(manager))
        .expect(204);
    });
  });

  describe('maintenance windows', () => {
    let windowId: string;
    let siblingWindowId: string;

    const create = (body: Row, jwt = owner.jwt, project = projectId) =>
      t.request().post(windows(project)).set(bearer(jwt)).send(body);

    it('creates a window: 201 with matchers and active', async () => {
      const startsAt = inMinutes(30);
      const endsAt = inMinutes(90);
      const res = await create(
        {
          name: ' Database upgrade ',
          starts_at: startsAt,
          ends_at: endsAt,
          matchers: [
            { label: 'service', op: 'eq', value: 'db', extra: 'dropped' },
            { label: 'env', op: 're', value: 'prod|staging' },
          ],
        },
        operator.jwt,
      ).expect(201);
      const window = res.body.data as Row;
      expect(Object.keys(window).sort()).toEqual(WINDOW_FIELDS);
      expect(window).toEqual({
        id: expect.any(String),
        project_id: projectId,
        name: 'Database upgrade',
        starts_at: startsAt,
        ends_at: endsAt,
        matchers: [
          { label: 'service', op: 'eq', value: 'db' },
          { label: 'env', op: 're', value: 'prod|staging' },
        ],
        active: false,
        created_by: { id: operator.accountId, name: 'operator' },
        created_at: t.clock.now().toISOString(),
        updated_at: t.clock.now().toISOString(),
      });
      windowId = window.id as string;
      const sibling = await create(
        { name: 'Elsewhere', starts_at: inMinutes(-5), ends_at: inMinutes(5) },
        owner.jwt,
        siblingProjectId,
      ).expect(201);
      expect(sibling.body.data).toMatchObject({ matchers: [], active: true });
      siblingWindowId = sibling.body.data.id;
    });

    it.each<[string, Row, string[]]>([
      ['no body', {}, ['name', 'starts_at', 'ends_at']],
      [
        'a blank name',
        { name: ' ', starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-02T00:00:00Z' },
        ['name'],
      ],
      [
        'ends_at before starts_at',
        { name: 'w', starts_at: '2030-01-02T00:00:00Z', ends_at: '2030-01-01T00:00:00Z' },
        ['ends_at'],
      ],
      [
        'ends_at equal to starts_at',
        { name: 'w', starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-01T00:00:00Z' },
        ['ends_at'],
      ],
      [
        'a starts_at that is no date',
        { name: 'w', starts_at: 'soon', ends_at: '2030-01-01T00:00:00Z' },
        ['starts_at'],
      ],
      [
        'an unknown op',
        {
          name: 'w',
          starts_at: '2030-01-01T00:00:00Z',
          ends_at: '2030-01-02T00:00:00Z',
          matchers: [
            { label: 'env', op: 'eq', value: 'prod' },
            { label: 'env', op: 'ne', value: 'prod' },
          ],
        },
        ['matchers[1]'],
      ],
      [
        'an invalid regular expression',
        {
          name: 'w',
          starts_at: '2030-01-01T00:00:00Z',
          ends_at: '2030-01-02T00:00:00Z',
          matchers: [{ label: 'env', op: 're', value: '(unclosed' }],
        },
        ['matchers[0]'],
      ],
      [
        'a bad label name and a missing value',
        {
          name: 'w',
          starts_at: '2030-01-01T00:00:00Z',
          ends_at: '2030-01-02T00:00:00Z',
          matchers: [{ label: 'bad label', op: 'eq' }, 'not an object'],
        },
        ['matchers[0]', 'matchers[1]'],
      ],
      [
        'matchers that are no array',
        {
          name: 'w',
          starts_at: '2030-01-01T00:00:00Z',
          ends_at: '2030-01-02T00:00:00Z',
          matchers: { label: 'env', op: 'eq', value: 'prod' },
        },
        ['matchers'],
      ],
      [
        'a NUL in the name',
        { name: 'a\u0000b', starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-02T00:00:00Z' },
        ['name'],
      ],
      [
        'a NUL in a matcher value',
        {
          name: 'w',
          starts_at: '2030-01-01T00:00:00Z',
          ends_at: '2030-01-02T00:00:00Z',
          matchers: [{ label: 'env', op: 'eq', value: 'a\u0000b' }],
        },
        ['matchers[0].value'],
      ],
      [
        'more than 50 matchers',
        {
          name: 'w',
          starts_at: '2030-01-01T00:00:00Z',
          ends_at: '2030-01-02T00:00:00Z',
          matchers: Array.from({ length: 51 }, (_, i) => ({
            label: `l${i}`,
            op: 'eq',
            value: 'x',
          })),
        },
        ['matchers'],
      ],
      [
        'a bad interval and a bad matcher together',
        {
          name: 'w',
          starts_at: '2030-01-02T00:00:00Z',
          ends_at: '2030-01-01T00:00:00Z',
          matchers: [{ label: 'env', op: 'like', value: 'x' }],
        },
        ['ends_at', 'matchers[0]'],
      ],
    ])('refuses %s with 422 validation_failed', async (_, body, fields) => {
      const before = (await windowRows()).length;
      const res = await create(body).expect(422);
      expectValidation(res, fields);
      expect((await windowRows()).length).toBe(before);
    });

    it('names the matcher and its problem', async () => {
      const res = await create({
        name: 'w',
        starts_at: '2030-01-01T00:00:00Z',
        ends_at: '2030-01-02T00:00:00Z',
        matchers: [{ label: 'env', op: 're', value: '(unclosed' }],
      }).expect(422);
      expect(res.body.details.fields[0].messages[0]).toMatch(/not a valid regular expression/);
    });

    it('lists the project windows by starts_at descending and shows one', async () => {
      const earlier = await create({
        name: 'Earlier',
        starts_at: inMinutes(-120),
        ends_at: inMinutes(-60),
      }).expect(201);
      const list = await t.request().get(windows()).set(bearer(viewer.jwt)).expect(200);
      expect(list.body.data.map((w: Row) => w.id)).toEqual([windowId, earlier.body.data.id]);
      expect(list.body.data[1]).toMatchObject({ active: false, matchers: [] });
      const one = await t
        .request()
        .get(`${windows()}/${windowId}`)
        .set(bearer(viewer.jwt))
        .expect(200);
      expect(one.body.data).toEqual(list.body.data[0]);
      await t
        .request()
        .delete(`${windows()}/${earlier.body.data.id}`)
        .set(bearer(owner.jwt))
        .expect(204);
    });

    it('answers 404 for another project window', async () => {
      for (const request of [
        t.request().get(`${windows()}/${siblingWindowId}`),
        t.request().patch(`${windows()}/${siblingWindowId}`).send({ name: 'mine now' }),
        t.request().delete(`${windows()}/${siblingWindowId}`),
        t.request().get(`${windows()}/not-a-uuid`),
      ]) {
        const res = await request.set(bearer(owner.jwt)).expect(404);
        expect(res.body.code).toBe('not_found');
      }
      expect((await windowRows(siblingProjectId))[0]).toMatchObject({ name: 'Elsewhere' });
      await t.request().get(windows(strangerProjectId)).set(bearer(owner.jwt)).expect(404);
    });

    it('turns active while now is inside the window', async () => {
      t.clock.advance({ minutes: 30 });
      const res = await t
        .request()
        .get(`${windows()}/${windowId}`)
        .set(bearer(owner.jwt))
        .expect(200);
      expect(res.body.data.active).toBe(true);
    });

    it('PATCH changes only the fields it sends', async () => {
      const before = (
        await t.request().get(`${windows()}/${windowId}`).set(bearer(owner.jwt)).expect(200)
      ).body.data as Row;
      t.clock.advance({ minutes: 1 });
      const res = await t
        .request()
        .patch(`${windows()}/${windowId}`)
        .set(bearer(operator.jwt))
        .send({ name: 'Database upgrade, part 2' })
        .expect(200);
      expect(res.body.data).toEqual({
        ...before,
        name: 'Database upgrade, part 2',
        updated_at: t.clock.now().toISOString(),
      });
    });

    it('PATCH replaces matchers, and null clears them', async () => {
      const replaced = await t
        .request()
        .patch(`${windows()}/${windowId}`)
        .set(bearer(owner.jwt))
        .send({ matchers: [{ label: 'team', op: 'eq', value: 'dba' }] })
        .expect(200);
      expect(replaced.body.data.matchers).toEqual([{ label: 'team', op: 'eq', value: 'dba' }]);
      const cleared = await t
        .request()
        .patch(`${windows()}/${windowId}`)
        .set(bearer(owner.jwt))
        .send({ matchers: null })
        .expect(200);
      expect(cleared.body.data.matchers).toEqual([]);
    });

    it('PATCH checks the merged interval and matchers, and changes nothing on 422', async () => {
      const before = (await windowRows()).find((w) => w.id === windowId);
      const current = (
        await t.request().get(`${windows()}/${windowId}`).set(bearer(owner.jwt)).expect(200)
      ).body.data as Row;
      const cases: Array<[Row, string[]]> = [
        [{ ends_at: current.starts_at }, ['ends_at']],
        [{ starts_at: current.ends_at }, ['ends_at']],
        [{ matchers: [{ label: 'env', op: 're', value: '[' }] }, ['matchers[0]']],
        [{ name: null }, ['name']],
        [{ name: '' }, ['name']],
        [{ starts_at: null }, ['starts_at']],
      ];
      for (const [body, fields] of cases) {
        const res = await t
          .request()
          .patch(`${windows()}/${windowId}`)
          .set(bearer(owner.jwt))
          .send(body)
          .expect(422);
        expectValidation(res, fields);
      }
      expect((await windowRows()).find((w) => w.id === windowId)).toEqual(before);
    });

    it('lets a viewer read but not write; an operator cannot delete', async () => {
      await t.request().get(windows()).set(bearer(viewer.jwt)).expect(200);
      const post = await create(
        { name: 'viewer', starts_at: inMinutes(1), ends_at: inMinutes(2) },
        viewer.jwt,
      ).expect(403);
      expect(post.body.code).toBe('forbidden');
      await t
        .request()
        .patch(`${windows()}/${windowId}`)
        .set(bearer(viewer.jwt))
        .send({ name: 'viewer' })
        .expect(403);
      await t.request().delete(`${windows()}/${windowId}`).set(bearer(operator.jwt)).expect(403);
    });

    it('is its own scope resource for static tokens', async () => {
      const alertsToken = await mintToken(t, owner.jwt, ['alerts:*']);
      const denied = await t.request().get(windows()).set(bearer(alertsToken)).expect(403);
      expect(denied.body.code).toBe('insufficient_scope');
      const reader = await mintToken(t, owner.jwt, ['maintenance_windows:read']);
      await t.request().get(windows()).set(bearer(reader)).expect(200);
      const cannotWrite = await create(
        { name: 'token', starts_at: inMinutes(1), ends_at: inMinutes(2) },
        reader,
      ).expect(403);
      expect(cannotWrite.body.code).toBe('insufficient_scope');
    });

    it('DELETE removes the window: 204, then 404', async () => {
      const temporary = await create({
        name: 'Temporary',
        starts_at: inMinutes(1),
        ends_at: inMinutes(2),
      }).expect(201);
      const path = `${windows()}/${temporary.body.data.id}`;
      await t.request().delete(path).set(bearer(owner.jwt)).expect(204);
      await t.request().get(path).set(bearer(owner.jwt)).expect(404);
      const again = await t.request().delete(path).set(bearer(owner.jwt)).expect(404);
      expect(again.body.code).toBe('not_found');
    });
  });

  describe('SuppressionService.evaluate', () => {
    let evalProjectId: string;
    let prodDb: string;
    let prodWeb: string;
    let stagingWeb: string;
    let suppression: SuppressionService;
    const now = () => t.clock.now();
    const later = (minutes: number) => new Date(now().getTime() + minutes * 60_000);
    const labels = {
      prodDb: { env: 'prod', service: 'db' },
      prodWeb: { env: 'prod', service: 'web' },
      stagingWeb: { env: 'staging', service: 'web' },
    };
    const evaluate = (at = now()) =>
      suppression.evaluate(
        evalProjectId,
        [
          { id: prodDb, labels: labels.prodDb },
          { id: prodWeb, labels: labels.prodWeb },
          { id: stagingWeb, labels: labels.stagingWeb },
        ],
        at,
      );
    const silence = async (alertId: string, minutes: number) =>
      (
        await t
          .request()
          .post(silences(alertId, evalProjectId))
          .set(bearer(owner.jwt))
          .send({ ends_at: later(minutes).toISOString(), comment: 'evaluate' })
          .expect(201)
      ).body.data.id as string;
    const window = async (body: Row) =>
      (
        await t
          .request()
          .post(windows(evalProjectId))
          .set(bearer(owner.jwt))
          .send({ name: 'evaluate', ...body })
          .expect(201)
      ).body.data.id as string;
    const removeWindows = async () =>
      db.query('DELETE FROM maintenance_window WHERE project_id = $1', [evalProjectId]);

    beforeAll(async () => {
      suppression = t.get(SuppressionService);
      evalProjectId = await alertsProject(t, owner, 'evaluation');
      prodDb = await seed(evalProjectId, 'prod-db', labels.prodDb);
      prodWeb = await seed(evalProjectId, 'prod-web', labels.prodWeb);
      stagingWeb = await seed(evalProjectId, 'staging-web', labels.stagingWeb);
    });

    it('suppresses nothing without silences or windows', async () => {
      expect(await evaluate()).toEqual(new Map());
      expect(await suppression.evaluate(evalProjectId, [], now())).toEqual(new Map());
    });

    it('an active silence suppresses its alert only, until it ends or expires', async () => {
      const silenceId = await silence(prodDb, 30);
      expect(await evaluate()).toEqual(new Map([[prodDb, { kind: 'silenced', silenceId }]]));
      expect(await evaluate(later(29))).toEqual(
        new Map([[prodDb, { kind: 'silenced', silenceId }]]),
      );
      expect(await evaluate(later(30))).toEqual(new Map());
      // A silence starts when it is created: before that it suppresses nothing.
      expect(await evaluate(later(-1))).toEqual(new Map());
      t.clock.advance({ minutes: 1 });
      await t
        .request()
        .delete(`${silences(prodDb, evalProjectId)}/${silenceId}`)
        .set(bearer(owner.jwt))
        .expect(204);
      expect(await evaluate()).toEqual(new Map());
    });

    it('a window without matchers suppresses every alert of the project while active', async () => {
      const windowId = await window({
        starts_at: later(10).toISOString(),
        ends_at: later(20).toISOString(),
      });
      expect(await evaluate()).toEqual(new Map());
      const during = await evaluate(later(10));
      expect([...during.keys()].sort()).toEqual([prodDb, prodWeb, stagingWeb].sort());
      expect(during.get(prodWeb)).toEqual({ kind: 'maintenance', maintenanceWindowId: windowId });
      expect(await evaluate(later(20))).toEqual(new Map());
      await removeWindows();
    });

    it('a window with matchers suppresses the alerts passing all of them', async () => {
      const windowId = await window({
        starts_at: later(-10).toISOString(),
        ends_at: later(10).toISOString(),
        matchers: [
          { label: 'service', op: 'eq', value: 'web' },
          { label: 'env', op: 're', value: 'prod|qa' },
        ],
      });
      expect(await evaluate()).toEqual(
        new Map([[prodWeb, { kind: 'maintenance', maintenanceWindowId: windowId }]]),
      );
      await removeWindows();
    });

    it('an ended window suppresses nothing', async () => {
      await window({ starts_at: later(-20).toISOString(), ends_at: later(-10).toISOString() });
      expect(await evaluate()).toEqual(new Map());
      await removeWindows();
    });

    it('a silence wins over a window; other projects windows do not count', async () => {
      const silenceId = await silence(stagingWeb, 30);
      const windowId = await window({
        starts_at: later(-1).toISOString(),
        ends_at: later(30).toISOString(),
        matchers: [{ label: 'env', op: 'eq', value: 'staging' }],
      });
      await t
        .request()
        .post(windows(projectId))
        .set(bearer(owner.jwt))
        .send({ name: 'other project', starts_at: later(-1), ends_at: later(30) })
        .expect(201);
      expect(await evaluate()).toEqual(new Map([[stagingWeb, { kind: 'silenced', silenceId }]]));
      await t
        .request()
        .delete(`${silences(stagingWeb, evalProjectId)}/${silenceId}`)
        .set(bearer(owner.jwt))
        .expect(204);
      expect(await evaluate()).toEqual(
        new Map([[stagingWeb, { kind: 'maintenance', maintenanceWindowId: windowId }]]),
      );
      await removeWindows();
    });

    it('ignores silences of alerts of other projects', async () => {
      const otherAlert = await seed(siblingProjectId, 'evaluate-other');
      await t
        .request()
        .post(silences(otherAlert, siblingProjectId))
        .set(bearer(owner.jwt))
        .send({ ends_at: later(30).toISOString(), comment: 'other' })
        .expect(201);
      const result = await suppression.evaluate(
        evalProjectId,
        [{ id: otherAlert, labels: {} }],
        now(),
      );
      expect(result).toEqual(new Map());
    });

    it('takes a fixed number of queries, however many alerts', async () => {
      const many = Array.from({ length: 40 }, (_, i) => ({
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        labels: { env: 'prod' },
      }));
      const spy = jest.spyOn(db, 'query');
      try {
        await suppression.evaluate(evalProjectId, many.slice(0, 1), now());
        const forOne = spy.mock.calls.length;
        spy.mockClear();
        await suppression.evaluate(evalProjectId, many, now());
        expect(spy.mock.calls.length).toBe(forOne);
        expect(forOne).toBe(2);
      } finally {
        spy.mockRestore();
      }
    });
  });

  describe('capability', () => {
    it('answers 403 alerts_capability_not_enabled on every route without the grant', async () => {
      const alertId = await seed(ungrantedProjectId, 'ungranted');
      const windowRowsBefore = (await windowRows(ungrantedProjectId)).length;
      const [{ id: windowId }]: Array<{ id: string }> = await db.query(
        `INSERT INTO maintenance_window (project_id, name, starts_at, ends_at, created_at, updated_at)
         VALUES ($1, 'seeded', $2, $3, $2, $2) RETURNING id`,
        [ungrantedProjectId, t.clock.now(), new Date(t.clock.now().getTime() + 60_000)],
      );
      const [{ id: silenceId }]: Array<{ id: string }> = await db.query(
        `INSERT INTO alert_silence (project_id, alert_id, starts_at, ends_at, comment, created_at)
         VALUES ($1, $2, $3, $4, 'seeded', $3) RETURNING id`,
        [ungrantedProjectId, alertId, t.clock.now(), new Date(t.clock.now().getTime() + 60_000)],
      );
      const body = { ends_at: inMinutes(5), comment: 'x' };
      const windowBody = { name: 'x', starts_at: inMinutes(1), ends_at: inMinutes(2) };
      const calls = [
        t.request().get(silences(alertId, ungrantedProjectId)),
        t.request().post(silences(alertId, ungrantedProjectId)).send(body),
        t.request().delete(`${silences(alertId, ungrantedProjectId)}/${silenceId}`),
        t.request().get(windows(ungrantedProjectId)),
        t.request().post(windows(ungrantedProjectId)).send(windowBody),
        t.request().get(`${windows(ungrantedProjectId)}/${windowId}`),
        t
          .request()
          .patch(`${windows(ungrantedProjectId)}/${windowId}`)
          .send({ name: 'y' }),
        t.request().delete(`${windows(ungrantedProjectId)}/${windowId}`),
      ];
      for (const call of calls) {
        const res = await call.set(bearer(owner.jwt)).expect(403);
        expect(res.body.code).toBe('alerts_capability_not_enabled');
      }
      expect(await windowRows(ungrantedProjectId)).toHaveLength(windowRowsBefore + 1);
      expect((await windowRows(ungrantedProjectId))[0].name).toBe('seeded');
      expect(await silenceCount(alertId)).toBe(1);
    });
  });
});
