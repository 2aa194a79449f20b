import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createApiTestApp } from '../support/api-app.js';
import { seedAccount, seedMember } from '../support/factories.js';
import { alertsProject, createProject } from '../support/alerting.js';
import { bearer, mintToken, type TestAccount } from '../support/identity.js';

type Row = Record<string, unknown>;

interface SeedAlert {
  id?: string;
  fingerprint: string;
  status?: 'firing' | 'resolved';
  severity?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  receivedAt?: Date;
}

const ALERT_FIELDS = [
  'acknowledged',
  'acknowledged_at',
  'acknowledged_by',
  'acknowledgement_count',
  'annotations',
  'created_at',
  'ends_at',
  'fingerprint',
  'generator_url',
  'id',
  'labels',
  'last_received_at',
  'project_id',
  'severity',
  'starts_at',
  'status',
  'updated_at',
];

describe('alerts: list, show, acknowledgement, timeline', () => {
  let t: TestApp;
  let db: DataSource;
  let owner: TestAccount;
  let developer: TestAccount;
  let viewer: TestAccount;
  let stranger: TestAccount;
  let projectId: string;
  let siblingProjectId: string;
  let strangerProjectId: string;
  let bulkProjectId: string;
  let ungrantedProjectId: string;
  let base: Date;

  /** Inserts alerts directly (ingest is not what is under test here); returns their ids. */
  const seed = async (project: string, alerts: SeedAlert[]): Promise<string[]> => {
    const ids: string[] = [];
    for (const a of alerts) {
      const received = a.receivedAt ?? t.clock.now();
      const status = a.status ?? 'firing';
      const severity = a.severity ?? 'warning';
      const rows: Array<{ id: string }> = await db.query(
        `INSERT INTO alert (id, project_id, fingerprint, status, severity, labels, annotations,
                            starts_at, ends_at, generator_url, last_received_at, created_at, updated_at)
         VALUES (coalesce($1::uuid, gen_random_uuid()), $2, $3, $4, $5, $6::jsonb, $7::jsonb,
                 $8, $9, 'http://prometheus:9090/graph', $10, $10, $10)
         RETURNING id`,
        [
          a.id ?? null,
          project,
          a.fingerprint,
          status,
          severity,
          JSON.stringify({ severity, ...a.labels }),
          JSON.stringify(a.annotations ?? {}),
          new Date(received.getTime() - 60_000),
          status === 'resolved' ? received : null,
          received,
        ],
      );
      ids.push(rows[0].id);
    }
    return ids;
  };

  const at = (minutes: number) => new Date(base.getTime() + minutes * 60_000);

  const list = (query: Row, jwt = owner.jwt, project = projectId) =>
    t
      .request()
      .get(`/projects/${project}/alerts`)
      .query(query)
      .set(bearer(jwt))
      .expect(200)
      .then((res) => res.body as { metadata: Row; data: Row[] });

  const fingerprints = async (query: Row, project = projectId) =>
    (await list(query, owner.jwt, project)).data.map((a) => a.fingerprint);

  const ack = (id: string, jwt: string, method: 'post' | 'delete' = 'post', project = projectId) =>
    t.request()[method](`/projects/${project}/alerts/${id}/ack`).set(bearer(jwt));

  const timeline = (id: string, jwt = owner.jwt) =>
    t
      .request()
      .get(`/projects/${projectId}/alerts/${id}/alert_events`)
      .set(bearer(jwt))
      .expect(200)
      .then((res) => res.body as { metadata: Row; data: Row[] });

  const ackRows = async (id: string): Promise<Row[]> =>
    db.query('SELECT * FROM alert_acknowledgement WHERE alert_id = $1', [id]);

  beforeAll(async () => {
    t = await createApiTestApp({ withWorker: true });
    db = t.get(DataSource);
    owner = await seedAccount(t, 'owner@example.com', 'Alerting Org');
    developer = await seedMember(t, owner, 'dev@example.com', 'developer');
    viewer = await seedMember(t, owner, 'viewer@example.com', 'viewer');
    stranger = await seedAccount(t, 'stranger@example.com', 'Stranger Org');
    projectId = await alertsProject(t, owner, 'production');
    siblingProjectId = await alertsProject(t, owner, 'staging');
    bulkProjectId = await alertsProject(t, owner, 'bulk');
    strangerProjectId = await alertsProject(t, stranger, 'theirs');
    ungrantedProjectId = await createProject(t, owner, 'no-alerts');
    base = new Date(t.clock.now().getTime() - 24 * 3_600_000);
  });

  afterAll(async () => {
    await t.close();
  });

  describe('search (q)', () => {
    beforeAll(async () => {
      await seed(projectId, [
        {
          fingerprint: 'fp-100%-disk',
          labels: { alertname: 'DiskFull' },
          annotations: { summary: 'Disk usage at 100% on db-1' },
          receivedAt: at(1),
        },
        {
          fingerprint: 'fp-under_score',
          labels: { alertname: 'Under_Score_Alert' },
          annotations: { summary: 'Plain words' },
          receivedAt: at(2),
        },
        {
          fingerprint: 'fp-back\\slash',
          labels: { alertname: 'PathAlert' },
          annotations: { summary: 'path C:\\temp\\logs is full' },
          receivedAt: at(3),
        },
        {
          fingerprint: 'abc123def',
          labels: { alertname: 'HighCpuUsage', instance: 'memory-host-1' },
          annotations: { summary: 'CPU high on web-7', description: 'plainly memory bound' },
          receivedAt: at(4),
        },
        {
          fingerprint: 'fp-memory',
          labels: { alertname: 'MemoryPressure' },
          annotations: { summary: 'Node out of MEMORY' },
          receivedAt: at(5),
        },
        {
          fingerprint: 'fp-axb',
          labels: { alertname: 'AxbAlert' },
          annotations: { summary: 'looks like a_b but is axb' },
          receivedAt: at(6),
        },
        {
          fingerprint: 'sep-a',
          labels: { alertname: 'b-name' },
          annotations: { summary: 'separator check' },
          receivedAt: at(7),
        },
        { fingerprint: 'fp-no-annotations', receivedAt: at(8) },
      ]);
      await seed(siblingProjectId, [
        {
          fingerprint: 'sibling-disk-100%',
          labels: { alertname: 'DiskFull' },
          annotations: { summary: 'Disk usage at 100%' },
          receivedAt: at(9),
        },
      ]);
    });

    it('takes % literally', async () => {
      expect(await fingerprints({ q: '%' })).toEqual(['fp-100%-disk']);
      expect(await fingerprints({ q: '100%' })).toEqual(['fp-100%-disk']);
      expect(await fingerprints({ q: '00%-d' })).toEqual(['fp-100%-disk']);
    });

    it('takes _ literally', async () => {
      expect(await fingerprints({ q: '_' })).toEqual(['fp-axb', 'fp-under_score']);
      expect(await fingerprints({ q: 'r_s' })).toEqual(['fp-under_score']);
      // `a_b` would match "axb" as a LIKE wildcard; taken literally it only finds the summary.
      expect(await fingerprints({ q: 'a_b' })).toEqual(['fp-axb']);
      expect(await fingerprints({ q: 'x_b' })).toEqual([]);
    });

    it('takes \\ literally', async () => {
      expect(await fingerprints({ q: '\\' })).toEqual(['fp-back\\slash']);
      expect(await fingerprints({ q: 'c:\\temp\\' })).toEqual(['fp-back\\slash']);
      expect(await fingerprints({ q: '\\%' })).toEqual([]);
    });

    it('searches the fingerprint, the alertname label and the summary annotation', async () => {
      expect(await fingerprints({ q: 'c123d' })).toEqual(['abc123def']);
      expect(await fingerprints({ q: 'HighCpu' })).toEqual(['abc123def']);
      expect(await fingerprints({ q: 'on web-7' })).toEqual(['abc123def']);
    });

    it('is case-insensitive in every field', async () => {
      expect(await fingerprints({ q: 'ABC123' })).toEqual(['abc123def']);
      expect(await fingerprints({ q: 'highcpuusage' })).toEqual(['abc123def']);
      expect(await fingerprints({ q: 'cpu HIGH' })).toEqual(['abc123def']);
      for (const q of ['memory', 'MEMORY', 'MeMoRy'])
        expect(await fingerprints({ q })).toEqual(['fp-memory']);
    });

    it('does not search other labels or annotations', async () => {
      // "memory" also sits in an instance label and a description of abc123def.
      expect(await fingerprints({ q: 'memory-host' })).toEqual([]);
      expect(await fingerprints({ q: 'plainly' })).toEqual([]);
    });

    it('never matches across two fields', async () => {
      expect(await fingerprints({ q: 'sep-a\u001fb-name' })).toEqual([]);
      expect(await fingerprints({ q: 'a\u001fb' })).toEqual([]);
      expect(await fingerprints({ q: 'sep-ab' })).toEqual([]);
      expect(await fingerprints({ q: 'b-name' })).toEqual(['sep-a']);
    });

    it('stays within the project and reports count and total', async () => {
      const page = await list({ q: 'disk' });
      expect(page.data.map((a) => a.fingerprint)).toEqual(['fp-100%-disk']);
      expect(page.metadata).toMatchObject({ project_id: projectId, count: 1, total: 1 });
      const none = await list({ q: 'no such alert anywhere' });
      expect(none.data).toEqual([]);
      expect(none.metadata).toMatchObject({ count: 0, total: 0 });
    });

    it('answers a q with a NUL character with 422 validation_failed naming q', async () => {
      const res = await t
        .request()
        .get(`/projects/${projectId}/alerts`)
        .query({ q: 'disk\u0000' })
        .set(bearer(owner.jwt))
        .expect(422);
      expect(res.body).toMatchObject({
        code: 'validation_failed',
        details: {
          fields: [{ field: 'q', messages: ['q must not contain a NUL character (U+0000)'] }],
        },
      });
    });

    it('treats an empty q as no search', async () => {
      const all = await list({});
      expect((await list({ q: '' })).data).toEqual(all.data);
      expect(all.metadata.total).toBe(8);
    });
  });

  describe('search totals as alerts change', () => {
    let changing: string;

    const search = (query: Row) => list(query, owner.jwt, changing);

    const kept = async (): Promise<Row[]> =>
      (
        (await db.query(
          'SELECT term, total FROM alert_search_total WHERE project_id = $1 ORDER BY term',
          [changing],
        )) as Row[]
      ).map((r) => ({ term: r.term, total: Number(r.total) }));

    /** `count` alerts named QueueBacklog, newest first from `from` minutes on. */
    const backlog = (prefix: string, count: number, from: number): SeedAlert[] =>
      Array.from({ length: count }, (_, i) => ({
        fingerprint: `${prefix}-${i}`,
        labels: { alertname: 'QueueBacklog' },
        annotations: { summary: `Queue ${prefix} ${i} growing` },
        receivedAt: at(from + i),
      }));

    beforeAll(async () => {
      changing = await alertsProject(t, owner, 'changing');
      await seed(changing, [
        ...backlog('orders', 8, 100),
        {
          fingerprint: 'disk-0',
          labels: { alertname: 'DiskFull' },
          annotations: { summary: 'Disk almost full' },
          receivedAt: at(90),
        },
      ]);
    });

    it('keeps the total of a search and adds the matches of alerts that arrive later', async () => {
      const first = await search({ q: 'QueueBack', limit: '3' });
      expect(first.data.map((a) => a.fingerprint)).toEqual(['orders-7', 'orders-6', 'orders-5']);
      expect(first.metadata).toMatchObject({ count: 3, total: 8 });
      expect(await kept()).toEqual([{ term: 'queueback', total: 8 }]);

      await seed(changing, backlog('billing', 3, 200));
      const later = await search({ q: 'queueBACK', limit: '3' });
      expect(later.data.map((a) => a.fingerprint)).toEqual(['billing-2', 'billing-1', 'billing-0']);
      expect(later.metadata).toMatchObject({ count: 3, total: 11 });
      expect(await kept()).toEqual([{ term: 'queueback', total: 11 }]);
      expect((await search({})).metadata.total).toBe(12);
    });

    it('counts afresh once a searched text changes or an alert goes', async () => {
      await db.query(
        `UPDATE alert SET labels = labels || '{"alertname": "Renamed"}'
          WHERE project_id = $1 AND fingerprint = 'orders-0'`,
        [changing],
      );
      expect((await search({ q: 'queueback' })).metadata.total).toBe(10);
      expect((await search({ q: 'renamed' })).data.map((a) => a.fingerprint)).toEqual(['orders-0']);

      await db.query(
        `DELETE FROM alert WHERE project_id = $1 AND fingerprint IN ('orders-1', 'billing-2')`,
        [changing],
      );
      const page = await search({ q: 'queueback', limit: '2' });
      expect(page.data.map((a) => a.fingerprint)).toEqual(['billing-1', 'billing-0']);
      expect(page.metadata).toMatchObject({ count: 2, total: 8 });
      expect((await search({})).metadata.total).toBe(10);
    });

    it('pages the same whether it walks the list or collects the matches', async () => {
      // 10 alerts: "queue" matches 9, so the list is walked in order; "orders-" matches 7,
      // and a page of 100 at offset 1 would walk the whole list, so its matches are collected.
      const walked = await search({ q: 'queue', limit: '4', offset: '2' });
      expect(walked.data.map((a) => a.fingerprint)).toEqual([
        'orders-7',
        'orders-6',
        'orders-5',
        'orders-4',
      ]);
      expect(walked.metadata).toMatchObject({ count: 4, total: 9 });
      const collected = await search({ q: 'orders-', offset: '1', limit: '100' });
      expect(collected.data.map((a) => a.fingerprint)).toEqual([
        'orders-6',
        'orders-5',
        'orders-4',
        'orders-3',
        'orders-2',
        'orders-0',
      ]);
      expect(collected.metadata).toMatchObject({ count: 6, total: 7 });
      const past = await search({ q: 'orders-', offset: '7' });
      expect(past.data).toEqual([]);
      expect(past.metadata).toMatchObject({ count: 0, total: 7 });
    });

    it('searches one and two characters exactly', async () => {
      expect((await search({ q: 'k' })).metadata.total).toBe(9);
      expect((await search({ q: 'DI' })).data.map((a) => a.fingerprint)).toEqual(['disk-0']);
      expect((await search({ q: 'q' })).metadata.total).toBe(9);
      expect((await search({ q: 'zz' })).metadata).toMatchObject({ count: 0, total: 0 });
    });

    it('counts a search with status and acknowledged filters exactly', async () => {
      await db.query(
        `UPDATE alert SET status = 'resolved', ends_at = last_received_at
          WHERE project_id = $1 AND fingerprint IN ('orders-2', 'orders-3', 'disk-0')`,
        [changing],
      );
      const resolved = await search({ q: 'queueback', status: 'resolved' });
      expect(resolved.data.map((a) => a.fingerprint)).toEqual(['orders-3', 'orders-2']);
      expect(resolved.metadata).toMatchObject({ count: 2, total: 2 });
      const firing = await search({ q: 'queueback', status: 'firing', limit: '1' });
      expect(firing.data.map((a) => a.fingerprint)).toEqual(['billing-1']);
      expect(firing.metadata).toMatchObject({ count: 1, total: 6 });
      const [acked] = (await db.query(
        `SELECT id FROM alert WHERE project_id = $1 AND fingerprint = 'orders-4'`,
        [changing],
      )) as Array<{ id: string }>;
      await ack(acked.id, developer.jwt, 'post', changing).expect(200);
      const unacked = await search({ q: 'queueback', status: 'firing', acknowledged: 'false' });
      expect(unacked.metadata).toMatchObject({ count: 5, total: 5 });
      expect(unacked.data.map((a) => a.fingerprint)).not.toContain('orders-4');
      expect((await search({ q: 'queueback' })).metadata.total).toBe(8);
    });
  });

  describe('long fields', () => {
    it('stores alerts with very long fields and searches their leading part', async () => {
      // Pseudo-random 4-byte characters, which do not compress: the search index entry must
      // stay within the B-tree's row limit whatever an alert carries.
      let state = 7;
      const noise = (length: number) =>
        Array.from({ length }, () => {
          state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
          return String.fromCodePoint(0x20000 + (state % 0xa000));
        }).join('');
      await seed(siblingProjectId, [
        {
          fingerprint: `long-fp-${noise(300)}`,
          labels: { alertname: `LongName${noise(5000)}` },
          annotations: {
            summary: `${noise(300)} early-marker ${noise(100)} late-marker ${noise(5000)}`,
          },
        },
      ]);
      const found = await fingerprints({ q: 'early-marker' }, siblingProjectId);
      expect(found).toHaveLength(1);
      expect(String(found[0]).startsWith('long-fp-')).toBe(true);
      // Past the first 360 characters of the summary, text is not searched.
      expect(await fingerprints({ q: 'late-marker' }, siblingProjectId)).toEqual([]);
    });
  });

  describe('order, paging and clamps', () => {
    const tied = [
      '00000000-0000-4000-8000-00000000000a',
      '00000000-0000-4000-8000-00000000000c',
      '00000000-0000-4000-8000-00000000000b',
    ];
    let bulkIds: string[];

    beforeAll(async () => {
      await seed(bulkProjectId, [
        { id: tied[0], fingerprint: 'tie-a', receivedAt: at(500) },
        { id: tied[1], fingerprint: 'tie-c', receivedAt: at(500) },
        { id: tied[2], fingerprint: 'tie-b', receivedAt: at(500) },
        { fingerprint: 'newest', receivedAt: at(600) },
        { fingerprint: 'older', receivedAt: at(400) },
      ]);
      // 200 more, each a second older than the one before, all older than the five above.
      await db.query(
        `INSERT INTO alert (project_id, fingerprint, status, severity, labels, annotations,
                            starts_at, generator_url, last_received_at, created_at, updated_at)
         SELECT $1, 'bulk-' || lpad(i::text, 3, '0'), 'firing', 'info',
                '{"severity": "info", "alertname": "Bulk"}', '{}', $2::timestamptz, '',
                $2::timestamptz - i * interval '1 second', $2::timestamptz, $2::timestamptz
           FROM generate_series(1, 200) AS i`,
        [bulkProjectId, at(300)],
      );
      bulkIds = (
        (await db.query(
          `SELECT id FROM alert WHERE project_id = $1
            ORDER BY last_received_at DESC, id DESC`,
          [bulkProjectId],
        )) as Array<{ id: string }>
      ).map((r) => r.id);
    });

    it('orders by last_received_at descending, ties by id descending', async () => {
      const page = await list({ limit: '6' }, owner.jwt, bulkProjectId);
      expect(page.data.map((a) => a.fingerprint)).toEqual([
        'newest',
        'tie-c',
        'tie-b',
        'tie-a',
        'older',
        'bulk-001',
      ]);
      expect(page.metadata).toMatchObject({ count: 6, total: 205 });
    });

    it('defaults to 25 and offset 0', async () => {
      const page = await list({}, owner.jwt, bulkProjectId);
      expect(page.data.map((a) => a.id)).toEqual(bulkIds.slice(0, 25));
      expect(page.metadata).toMatchObject({ count: 25, total: 205 });
    });

    it.each([
      ['0', 1],
      ['1', 1],
      ['-5', 1],
      ['abc', 25],
      ['200', 200],
      ['500', 200],
    ])('clamps limit=%s to %d, never a 422', async (limit, expected) => {
      const page = await list({ limit }, owner.jwt, bulkProjectId);
      expect(page.data.map((a) => a.id)).toEqual(bulkIds.slice(0, expected));
      expect(page.metadata).toMatchObject({ count: expected, total: 205 });
    });

    it.each([
      ['-5', 0],
      ['abc', 0],
      ['3', 3],
    ])('floors offset=%s to %d', async (offset, expected) => {
      const page = await list({ offset, limit: '4' }, owner.jwt, bulkProjectId);
      expect(page.data.map((a) => a.id)).toEqual(bulkIds.slice(expected, expected + 4));
    });

    it('pages to the end and past it with the same total', async () => {
      const last = await list({ offset: '200', limit: '200' }, owner.jwt, bulkProjectId);
      expect(last.data.map((a) => a.id)).toEqual(bulkIds.slice(200));
      expect(last.metadata).toMatchObject({ count: 5, total: 205 });
      const past = await list({ offset: '300' }, owner.jwt, bulkProjectId);
      expect(past.data).toEqual([]);
      expect(past.metadata).toMatchObject({ count: 0, total: 205 });
      const exact = await list({ offset: '180', limit: '25' }, owner.jwt, bulkProjectId);
      expect(exact.metadata).toMatchObject({ count: 25, total: 205 });
    });

    it('counts search matches beyond the page', async () => {
      const page = await list({ q: 'BULK-1', limit: '10' }, owner.jwt, bulkProjectId);
      expect(page.data.map((a) => a.fingerprint)).toEqual(
        Array.from({ length: 10 }, (_, i) => `bulk-${100 + i}`),
      );
      expect(page.metadata).toMatchObject({ count: 10, total: 100 });
    });
  });

  describe('status and acknowledged filters', () => {
    let firingAcked: string;
    const project = () => siblingProjectId;

    beforeAll(async () => {
      const ids = await seed(siblingProjectId, [
        { fingerprint: 'f-acked', status: 'firing', receivedAt: at(20) },
        { fingerprint: 'f-open', status: 'firing', receivedAt: at(21) },
        { fingerprint: 'r-acked', status: 'resolved', receivedAt: at(22) },
        { fingerprint: 'r-open', status: 'resolved', receivedAt: at(23) },
      ]);
      firingAcked = ids[0];
      await db.query(
        `INSERT INTO alert_acknowledgement (alert_id, channel, account_id, created_at)
         VALUES ($1, 'in_app', $3, $4), ($2, 'email', $3, $4)`,
        [ids[0], ids[2], owner.accountId, at(30)],
      );
    });

    const names = async (query: Row) =>
      (await fingerprints(query, project())).filter((f) => /^[fr]-/.test(String(f)));

    it('filters by status', async () => {
      expect(await names({ status: 'firing' })).toEqual(['f-open', 'f-acked']);
      expect(await names({ status: 'resolved' })).toEqual(['r-open', 'r-acked']);
    });

    it('filters by acknowledged', async () => {
      expect(await names({ acknowledged: 'true' })).toEqual(['r-acked', 'f-acked']);
      expect(await names({ acknowledged: 'false' })).toEqual(['r-open', 'f-open']);
      const acked = await list({ acknowledged: 'true' }, owner.jwt, project());
      expect(acked.metadata).toMatchObject({ count: 2, total: 2 });
      expect(acked.data.every((a) => a.acknowledged === true)).toBe(true);
    });

    it('combines status and acknowledged with AND', async () => {
      const page = await list({ status: 'firing', acknowledged: 'true' }, owner.jwt, project());
      expect(page.data.map((a) => a.id)).toEqual([firingAcked]);
      expect(page.metadata).toMatchObject({ count: 1, total: 1 });
      expect(await names({ status: 'resolved', acknowledged: 'false' })).toEqual(['r-open']);
    });

    it('ignores other values', async () => {
      const all = await names({});
      expect(all).toEqual(['r-open', 'r-acked', 'f-open', 'f-acked']);
      for (const query of [
        { status: 'FIRING' },
        { status: 'pending' },
        { status: '' },
        { acknowledged: 'yes' },
        { acknowledged: '1' },
        { status: 'bogus', acknowledged: 'bogus' },
        // The spec pins the whole list as lenient: bad paging never makes it a 422 either.
        { status: 'bogus', limit: 'abc', offset: 'xyz' },
      ])
        expect(await names(query)).toEqual(all);
    });
  });

  describe('show', () => {
    let alertId: string;
    let siblingAlertId: string;
    let strangerAlertId: string;

    beforeAll(async () => {
      [alertId] = await seed(projectId, [
        {
          fingerprint: 'show-me',
          status: 'resolved',
          severity: 'critical',
          labels: { alertname: 'ShowMe', team: 'db' },
          annotations: { summary: 'shown' },
          receivedAt: at(40),
        },
      ]);
      [siblingAlertId] = await seed(siblingProjectId, [{ fingerprint: 'sibling-only' }]);
      [strangerAlertId] = await seed(strangerProjectId, [{ fingerprint: 'stranger-only' }]);
    });

    it('answers the Alert resource with exactly its fields', async () => {
      const res = await t
        .request()
        .get(`/projects/${projectId}/alerts/${alertId}`)
        .set(bearer(viewer.jwt))
        .expect(200);
      const alert = res.body.data as Row;
      expect(Object.keys(alert).sort()).toEqual(ALERT_FIELDS);
      expect(alert).toEqual({
        id: alertId,
        project_id: projectId,
        fingerprint: 'show-me',
        status: 'resolved',
        severity: 'critical',
        labels: { severity: 'critical', alertname: 'ShowMe', team: 'db' },
        annotations: { summary: 'shown' },
        starts_at: new Date(at(40).getTime() - 60_000).toISOString(),
        ends_at: at(40).toISOString(),
        generator_url: 'http://prometheus:9090/graph',
        last_received_at: at(40).toISOString(),
        created_at: at(40).toISOString(),
        updated_at: at(40).toISOString(),
        acknowledged: false,
        acknowledged_at: null,
        acknowledged_by: null,
        acknowledgement_count: 0,
      });
      expect(res.body.metadata).toMatchObject({
        organization_id: owner.organizationId,
        project_id: projectId,
      });
    });

    it('lists alerts with the same fields', async () => {
      const page = await list({ q: 'show-me' });
      expect(page.data).toHaveLength(1);
      expect(Object.keys(page.data[0]).sort()).toEqual(ALERT_FIELDS);
    });

    it('answers 404 not_found for an alert of another project, organization or none', async () => {
      for (const id of [siblingAlertId, strangerAlertId, '00000000-0000-4000-8000-000000000999']) {
        const res = await t
          .request()
          .get(`/projects/${projectId}/alerts/${id}`)
          .set(bearer(owner.jwt))
          .expect(404);
        expect(res.body.code).toBe('not_found');
      }
      await t
        .request()
        .get(`/projects/${projectId}/alerts/not-a-uuid`)
        .set(bearer(owner.jwt))
        .expect(404);
      // Another organization's project is not there at all for this caller.
      const res = await t
        .request()
        .get(`/projects/${strangerProjectId}/alerts/${strangerAlertId}`)
        .set(bearer(owner.jwt))
        .expect(404);
      expect(res.body.code).toBe('not_found');
      await t
        .request()
        .get(`/projects/${strangerProjectId}/alerts`)
        .set(bearer(owner.jwt))
        .expect(404);
    });
  });

  describe('acknowledgement', () => {
    let alertId: string;
    let otherAlertId: string;
    let contactAlertId: string;

    beforeAll(async () => {
      [alertId, contactAlertId] = await seed(projectId, [
        { fingerprint: 'ack-me', labels: { alertname: 'AckMe' }, receivedAt: at(50) },
        { fingerprint: 'phone-acked', labels: { alertname: 'PhoneAcked' }, receivedAt: at(51) },
      ]);
      [otherAlertId] = await seed(siblingProjectId, [{ fingerprint: 'not-here' }]);
      await db.query(
        `INSERT INTO alert_event (alert_id, project_id, kind, details, created_at)
         VALUES ($1, $2, 'fired', '{"severity": "warning"}', $3)`,
        [alertId, projectId, at(50)],
      );
    });

    it('acknowledges: 200 with the updated alert, attributed as {id, name}', async () => {
      t.clock.advance({ seconds: 1 });
      const ackedAt = t.clock.now().toISOString();
      const res = await ack(alertId, developer.jwt).expect(200);
      expect(res.body.data).toMatchObject({
        id: alertId,
        status: 'firing',
        acknowledged: true,
        acknowledged_at: ackedAt,
        acknowledged_by: { id: developer.accountId, name: 'dev' },
        acknowledgement_count: 1,
      });
      expect(Object.keys(res.body.data).sort()).toEqual(ALERT_FIELDS);
      const rows = await ackRows(alertId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ channel: 'in_app', account_id: developer.accountId });
    });

    it('is idempotent for the same account within one firing', async () => {
      t.clock.advance({ seconds: 1 });
      const res = await ack(alertId, developer.jwt).expect(200);
      expect(res.body.data).toMatchObject({
        acknowledged: true,
        acknowledged_by: { id: developer.accountId, name: 'dev' },
        acknowledgement_count: 1,
      });
      expect(await ackRows(alertId)).toHaveLength(1);
    });

    it('counts every acknowledger; the earliest stays acknowledged_by', async () => {
      const first = (await ackRows(alertId))[0].created_at as Date;
      t.clock.advance({ seconds: 1 });
      const res = await ack(alertId, owner.jwt).expect(200);
      expect(res.body.data).toMatchObject({
        acknowledged: true,
        acknowledged_at: first.toISOString(),
        acknowledged_by: { id: developer.accountId, name: 'dev' },
        acknowledgement_count: 2,
      });
    });

    it('counts an acknowledgement again after the alert fires anew', async () => {
      t.clock.advance({ seconds: 1 });
      await db.query(
        `INSERT INTO alert_event (alert_id, project_id, kind, details, created_at)
         VALUES ($1, $2, 'refired', '{}', $3)`,
        [alertId, projectId, t.clock.now()],
      );
      t.clock.advance({ seconds: 1 });
      const res = await ack(alertId, developer.jwt).expect(200);
      expect(res.body.data.acknowledgement_count).toBe(3);
      t.clock.advance({ seconds: 1 });
      expect((await ack(alertId, developer.jwt).expect(200)).body.data.acknowledgement_count).toBe(
        3,
      );
    });

    it('writes acknowledged events to the timeline, oldest first', async () => {
      const events = await timeline(alertId, viewer.jwt);
      expect(events.data.map((e) => e.kind)).toEqual([
        'fired',
        'acknowledged',
        'acknowledged',
        'refired',
        'acknowledged',
      ]);
      expect(events.metadata).toMatchObject({ count: 5, total: 5 });
      expect(Object.keys(events.data[1]).sort()).toEqual([
        'alert_id',
        'created_at',
        'details',
        'id',
        'kind',
      ]);
      expect(events.data[1]).toMatchObject({
        alert_id: alertId,
        details: { channel: 'in_app', by: { id: developer.accountId, name: 'dev' } },
      });
      expect(events.data[2].details).toEqual({
        channel: 'in_app',
        by: { id: owner.accountId, name: 'owner' },
      });
      const paged = await t
        .request()
        .get(`/projects/${projectId}/alerts/${alertId}/alert_events?limit=2&offset=1`)
        .set(bearer(owner.jwt))
        .expect(200);
      expect(paged.body.data.map((e: Row) => e.kind)).toEqual(['acknowledged', 'acknowledged']);
      expect(paged.body.metadata).toMatchObject({ count: 2, total: 5 });
      const largest = await t
        .request()
        .get(`/projects/${projectId}/alerts/${alertId}/alert_events?limit=500&offset=0`)
        .set(bearer(owner.jwt))
        .expect(200);
      expect(largest.body.metadata).toMatchObject({ count: 5, total: 5 });
    });

    it.each([
      ['limit=0', 'limit', 'limit must be an integer from 1 to 500'],
      ['limit=501', 'limit', 'limit must be an integer from 1 to 500'],
      ['limit=abc', 'limit', 'limit must be an integer from 1 to 500'],
      ['offset=-1', 'offset', 'offset must be an integer from 0 to 9007199254740991'],
      ['offset=1.5', 'offset', 'offset must be an integer from 0 to 9007199254740991'],
    ])(
      'refuses a timeline page with %s: 422 naming the parameter',
      async (query, field, message) => {
        const res = await t
          .request()
          .get(`/projects/${projectId}/alerts/${alertId}/alert_events?${query}`)
          .set(bearer(owner.jwt))
          .expect(422);
        expect(res.body).toMatchObject({
          code: 'validation_failed',
          message: `Validation failed: ${message}`,
          source_operation: 'alertEvents.list',
          details: { fields: [{ field, messages: [message] }] },
        });
      },
    );

    it('shows up in the list and its acknowledged filter', async () => {
      const page = await list({ q: 'ack-me', acknowledged: 'true' });
      expect(page.data.map((a) => a.id)).toEqual([alertId]);
      expect(page.data[0]).toMatchObject({ acknowledged: true, acknowledgement_count: 3 });
    });

    it('un-acknowledges: hard-deletes every acknowledgement, 200 with acknowledged false', async () => {
      t.clock.advance({ seconds: 1 });
      const res = await ack(alertId, developer.jwt, 'delete').expect(200);
      expect(res.body.data).toMatchObject({
        id: alertId,
        status: 'firing',
        acknowledged: false,
        acknowledged_at: null,
        acknowledged_by: null,
        acknowledgement_count: 0,
      });
      expect(await ackRows(alertId)).toEqual([]);
      const events = (await timeline(alertId)).data;
      expect(events.map((e) => e.kind).slice(-1)).toEqual(['unacknowledged']);
      expect(events[events.length - 1].details).toEqual({
        by: { id: developer.accountId, name: 'dev' },
        removed: 3,
      });
    });

    it('un-acknowledging again is idempotent and records nothing', async () => {
      t.clock.advance({ seconds: 1 });
      const res = await ack(alertId, owner.jwt, 'delete').expect(200);
      expect(res.body.data).toMatchObject({ acknowledged: false, acknowledgement_count: 0 });
      expect((await timeline(alertId)).metadata.total).toBe(6);
    });

    it('acknowledges afresh after un-acknowledging', async () => {
      t.clock.advance({ seconds: 1 });
      const res = await ack(alertId, owner.jwt).expect(200);
      expect(res.body.data).toMatchObject({
        acknowledged: true,
        acknowledged_by: { id: owner.accountId, name: 'owner' },
        acknowledgement_count: 1,
      });
    });

    it('shows an external contact as {label}, never its number', async () => {
      await db.query(
        `INSERT INTO alert_acknowledgement (alert_id, channel, account_id, contact_label, created_at)
         VALUES ($1, 'phone', NULL, 'NOC hotline', $2)`,
        [contactAlertId, at(52)],
      );
      t.clock.advance({ seconds: 1 });
      await ack(contactAlertId, developer.jwt).expect(200);
      const res = await t
        .request()
        .get(`/projects/${projectId}/alerts/${contactAlertId}`)
        .set(bearer(owner.jwt))
        .expect(200);
      expect(res.body.data).toMatchObject({
        acknowledged: true,
        acknowledged_at: at(52).toISOString(),
        acknowledged_by: { label: 'NOC hotline' },
        acknowledgement_count: 2,
      });
      expect(Object.keys(res.body.data.acknowledged_by)).toEqual(['label']);
    });

    it('shows acknowledged_by null once the earliest acknowledger account is gone', async () => {
      const [orphanAlertId] = await seed(projectId, [{ fingerprint: 'orphan-ack' }]);
      // What ON DELETE SET NULL leaves behind when the acknowledging account is deleted.
      await db.query(
        `INSERT INTO alert_acknowledgement (alert_id, channel, account_id, created_at)
         VALUES ($1, 'email', NULL, $2)`,
        [orphanAlertId, at(53)],
      );
      const res = await t
        .request()
        .get(`/projects/${projectId}/alerts/${orphanAlertId}`)
        .set(bearer(owner.jwt))
        .expect(200);
      expect(res.body.data).toMatchObject({
        acknowledged: true,
        acknowledged_at: at(53).toISOString(),
        acknowledged_by: null,
        acknowledgement_count: 1,
      });
    });

    it('answers 404 for an alert of another project and writes nothing', async () => {
      for (const method of ['post', 'delete'] as const) {
        const res = await ack(otherAlertId, owner.jwt, method).expect(404);
        expect(res.body.code).toBe('not_found');
      }
      expect(await ackRows(otherAlertId)).toEqual([]);
      const events = await t
        .request()
        .get(`/projects/${projectId}/alerts/${otherAlertId}/alert_events`)
        .set(bearer(owner.jwt))
        .expect(404);
      expect(events.body.code).toBe('not_found');
    });

    it('lets a viewer read but not acknowledge', async () => {
      await list({}, viewer.jwt);
      await timeline(alertId, viewer.jwt);
      for (const method of ['post', 'delete'] as const) {
        const res = await ack(alertId, viewer.jwt, method).expect(403);
        expect(res.body.code).toBe('forbidden');
      }
      expect(await ackRows(alertId)).toHaveLength(1);
    });

    it('needs alerts scopes on a static token: read to list, write to acknowledge', async () => {
      const reader = await mintToken(t, owner.jwt, ['alerts:read']);
      await list({}, reader);
      const denied = await ack(alertId, reader).expect(403);
      expect(denied.body.code).toBe('insufficient_scope');
      const writer = await mintToken(t, owner.jwt, ['alerts:write']);
      await ack(alertId, writer, 'delete').expect(200);
      await ack(alertId, writer).expect(200);
    });

    it('reads the timeline with the alert_events scope, not the alerts one', async () => {
      const alertsOnly = await mintToken(t, owner.jwt, ['alerts:*']);
      const denied = await t
        .request()
        .get(`/projects/${projectId}/alerts/${alertId}/alert_events`)
        .set(bearer(alertsOnly))
        .expect(403);
      expect(denied.body.code).toBe('insufficient_scope');
      const eventsReader = await mintToken(t, owner.jwt, ['alert_events:read']);
      await timeline(alertId, eventsReader);
      const noList = await t
        .request()
        .get(`/projects/${projectId}/alerts`)
        .set(bearer(eventsReader))
        .expect(403);
      expect(noList.body.code).toBe('insufficient_scope');
    });
  });

  describe('capability', () => {
    it('answers 403 alerts_capability_not_enabled on every route without the grant', async () => {
      const [alertId] = await seed(ungrantedProjectId, [{ fingerprint: 'ungranted' }]);
      const base = `/projects/${ungrantedProjectId}/alerts`;
      const calls = [
        t.request().get(base),
        t.request().get(`${base}?q=x&status=firing`),
        t.request().get(`${base}/${alertId}`),
        t.request().post(`${base}/${alertId}/ack`),
        t.request().delete(`${base}/${alertId}/ack`),
        t.request().get(`${base}/${alertId}/alert_events`),
      ];
      for (const call of calls) {
        const res = await call.set(bearer(owner.jwt)).expect(403);
        expect(res.body.code).toBe('alerts_capability_not_enabled');
      }
      expect(await ackRows(alertId)).toEqual([]);
    });
  });
});
