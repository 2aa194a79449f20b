import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { AlertSearchTexts } from '@platform/alerting';
import { MetricsService } from '@platform/core';
import { DataSource } from 'typeorm';
import { createApiTestApp } from '../support/api-app.js';
import { seedAccount } from '../support/factories.js';
import { alertsProject } from '../support/alerting.js';
import { bearer, type TestAccount } from '../support/identity.js';

type Row = Record<string, unknown>;
type Source = 'kept' | 'memory' | 'forward' | 'counted';

/**
 * Search totals counted from the project's search texts held in the API's memory: exact as
 * alerts arrive, change and go, read again in the background, within the memory budget.
 */
describe('alerts: search totals from the texts held in memory', () => {
  let t: TestApp;
  let db: DataSource;
  let owner: TestAccount;
  let projectId: string;
  let otherProjectId: string;
  let texts: AlertSearchTexts;

  /** Alerts named `name` with summaries `summary <i>`, fingerprints `<prefix>-<i>`. */
  const seed = async (
    project: string,
    prefix: string,
    count: number,
    name: string,
    summary: string,
  ) => {
    await db.query(
      `INSERT INTO alert (project_id, fingerprint, status, severity, labels, annotations,
                          starts_at, generator_url, last_received_at, created_at, updated_at)
       SELECT $1, $2 || '-' || i, 'firing', 'warning',
              jsonb_build_object('alertname', $4::text),
              jsonb_build_object('summary', $5 || ' ' || i), $6, '', $6, $6, $6
         FROM generate_series(1, $3::int) AS i`,
      [project, prefix, count, name, summary, t.clock.now()],
    );
  };

  /** Gives the project's alerts of those fingerprints a new summary (their search text). */
  const rename = (fingerprints: string[], summary: string) =>
    db.query(
      `UPDATE alert SET annotations = jsonb_build_object('summary', $3::text)
        WHERE project_id = $1 AND fingerprint = ANY($2)`,
      [projectId, fingerprints, summary],
    );

  const search = async (q: string, project = projectId) =>
    (
      await t
        .request()
        .get(`/projects/${project}/alerts`)
        .query({ q, limit: '2' })
        .set(bearer(owner.jwt))
        .expect(200)
    ).body as { metadata: { count: number; total: number }; data: Row[] };

  /** The SQL count of what the total must be. */
  const expected = async (q: string, project = projectId): Promise<number> => {
    const [{ n }]: Array<{ n: number }> = await db.query(
      `SELECT count(*)::int AS n FROM alert WHERE project_id = $1 AND strpos(search_text, lower($2)) > 0`,
      [project, q],
    );
    return n;
  };

  const sources = async (): Promise<Record<Source, number>> => {
    const metric = t.get(MetricsService).registry.getSingleMetric('alert_search_totals_total')!;
    const counts: Record<Source, number> = { kept: 0, memory: 0, forward: 0, counted: 0 };
    for (const v of (await metric.get()).values) counts[v.labels.source as Source] = v.value;
    return counts;
  };

  /** The total of a first search of `q` (no total kept), and how the API had it. */
  const firstSearch = async (q: string, project = projectId) => {
    await db.query('DELETE FROM alert_search_total');
    const before = await sources();
    const { metadata } = await search(q, project);
    const after = await sources();
    const source = (Object.keys(after) as Source[]).find((s) => after[s] !== before[s]);
    return { total: metadata.total, source };
  };

  beforeAll(async () => {
    t = await createApiTestApp({ withWorker: true });
    db = t.get(DataSource);
    texts = t.get(AlertSearchTexts);
    owner = await seedAccount(t, 'owner@example.com', 'Search Org');
    projectId = await alertsProject(t, owner, 'production');
    otherProjectId = await alertsProject(t, owner, 'staging');
    await seed(projectId, 'queue', 40, 'QueueBacklog', 'Queue growing on web');
    await seed(projectId, 'disk', 25, 'DiskSpaceLow', 'Disk almost full on db');
    await seed(otherProjectId, 'queue', 7, 'QueueBacklog', 'Queue growing on web');
  });

  afterAll(async () => {
    await t.close();
  });

  beforeEach(async () => {
    await texts.settled();
  });

  it('counts in SQL until a search has the project read, then in memory', async () => {
    expect(await firstSearch('queue')).toEqual({ total: 40, source: 'counted' });
    await texts.settled();
    expect(await firstSearch('growing')).toEqual({ total: 40, source: 'memory' });
    for (const q of ['o', 'ON', 'disk almost', 'queue-1', 'web', 'nothing like it'])
      expect([q, await firstSearch(q)]).toEqual([
        q,
        { total: await expected(q), source: 'memory' },
      ]);
    // A separator in the query is matched field by field, in SQL.
    expect(await firstSearch('g\u001fq')).toEqual({ total: 0, source: 'counted' });
    // Another project is read on its own, and never counts this one's alerts.
    expect(await firstSearch('queue', otherProjectId)).toEqual({ total: 7, source: 'counted' });
    await texts.settled();
    expect(await firstSearch('queue', otherProjectId)).toEqual({ total: 7, source: 'memory' });
  });

  it('keeps the total it counted for the next search of the term', async () => {
    await firstSearch('almost');
    const before = await sources();
    expect((await search('almost')).metadata.total).toBe(25);
    expect((await sources()).kept).toBe(before.kept + 1);
  });

  it('adds the matches among alerts that arrived since the texts were read', async () => {
    await seed(projectId, 'late', 5, 'QueueBacklog', 'Queue growing late');
    expect(await firstSearch('queue')).toEqual({ total: 45, source: 'memory' });
    expect(await firstSearch('late')).toEqual({ total: 5, source: 'memory' });
    // Read since: the texts now hold the late alerts themselves.
    await texts.settled();
    expect(texts.usable(projectId, Number.MAX_SAFE_INTEGER, 0)!.alerts).toBe(70);
    expect(await firstSearch('late')).toEqual({ total: 5, source: 'memory' });
  });

  it('counts changed texts off and on at once, and in SQL after an alert goes', async () => {
    await rename(['queue-1', 'late-1'], 'renamed');
    expect(await firstSearch('renamed')).toEqual({ total: 2, source: 'memory' });
    expect(await firstSearch('queue growing')).toEqual({ total: 43, source: 'memory' });
    // Changed again, and an alert both added and changed since the texts were read.
    await seed(projectId, 'later', 1, 'QueueBacklog', 'Queue growing later');
    await rename(['queue-1', 'later-1'], 'renamed twice');
    expect(await firstSearch('renamed')).toEqual({ total: 3, source: 'memory' });
    expect(await firstSearch('twice')).toEqual({ total: 2, source: 'memory' });
    expect(await firstSearch('queue growing')).toEqual({ total: 43, source: 'memory' });
    await texts.settled();
    const held = texts.usable(projectId, Number.MAX_SAFE_INTEGER, 0)!;
    expect(held.alerts).toBe(71);
    expect(held.count('renamed')).toBe(3);
    expect(await firstSearch('renamed')).toEqual({ total: 3, source: 'memory' });

    await db.query(`DELETE FROM alert WHERE project_id = $1 AND fingerprint LIKE 'late%'`, [
      projectId,
    ]);
    expect(await firstSearch('queue growing')).toEqual({ total: 39, source: 'counted' });
    await texts.settled();
    expect(await firstSearch('queue growing')).toEqual({ total: 39, source: 'memory' });
    expect(await firstSearch('late')).toEqual({ total: 0, source: 'memory' });
    expect(await firstSearch('renamed')).toEqual({ total: 1, source: 'memory' });
  });

  it('brings a kept total forward across changed texts', async () => {
    await db.query('DELETE FROM alert_search_total');
    expect((await search('disk almost')).metadata.total).toBe(25);
    await rename(['disk-1', 'disk-2'], 'Disk fine');
    await seed(projectId, 'disk2', 3, 'DiskSpaceLow', 'Disk almost full on web');
    const before = await sources();
    expect((await search('disk almost')).metadata.total).toBe(26);
    expect((await sources()).forward).toBe(before.forward + 1);
    expect(await expected('disk almost')).toBe(26);

    // Texts read later than the kept total count instead of it.
    await seed(projectId, 'disk3', 2, 'DiskSpaceLow', 'Disk almost full on api');
    await search('another term');
    await texts.settled();
    await seed(projectId, 'disk4', 1, 'DiskSpaceLow', 'Disk almost full on edge');
    const beforeMemory = await sources();
    expect((await search('disk almost')).metadata.total).toBe(29);
    expect((await sources()).memory).toBe(beforeMemory.memory + 1);
  });

  it('answers the same page whichever way the total was had', async () => {
    await db.query('DELETE FROM alert_search_total');
    const before = await sources();
    const fromMemory = await search('disk');
    // A removal makes the texts unusable until they are read again.
    await db.query(`DELETE FROM alert WHERE project_id = $1 AND fingerprint = 'queue-2'`, [
      projectId,
    ]);
    await db.query('DELETE FROM alert_search_total');
    const inSql = await search('disk');
    const after = await sources();
    expect(after.memory).toBe(before.memory + 1);
    expect(after.counted).toBe(before.counted + 1);
    expect(inSql.metadata).toEqual(fromMemory.metadata);
    expect(inSql.metadata.total).toBe(31);
    expect(inSql.data.map((a) => a.id)).toEqual(fromMemory.data.map((a) => a.id));
  });

  it('trims the log of replaced texts to the last 65,536 generations', async () => {
    await texts.settled();
    const state = async () =>
      (
        (await db.query(
          `SELECT generation::int AS generation, rewritten_generation::int AS rewritten,
                  (SELECT count(*)::int FROM alert_search_replaced r WHERE r.project_id = s.project_id) AS logged
             FROM alert_search_state s WHERE project_id = $1`,
          [projectId],
        )) as Array<{ generation: number; rewritten: number; logged: number }>
      )[0];
    await rename(['queue-3'], 'first');
    const { generation, rewritten, logged } = await state();
    expect(logged).toBeGreaterThan(0);
    // The next change lands on generation 66,048 (a multiple of 256).
    await db.query('UPDATE alert_search_state SET generation = 66047 WHERE project_id = $1', [
      projectId,
    ]);
    await rename(['queue-4'], 'second');
    expect(await state()).toEqual({ generation: 66048, rewritten: 512, logged: 1 });
    expect(generation).toBeLessThan(512);
    expect(rewritten).toBeLessThan(512);
    // Counts older than the log cannot be brought forward: the texts are read again.
    expect(await firstSearch('queue growing')).toEqual({ total: 36, source: 'counted' });
    await texts.settled();
    expect(await firstSearch('queue growing')).toEqual({ total: 36, source: 'memory' });
  });

  it('reports the memory it holds', async () => {
    const registry = t.get(MetricsService).registry;
    const bytes = (await registry.getSingleMetric('alert_search_memory_bytes')!.get()).values[0];
    const projects = (await registry.getSingleMetric('alert_search_memory_projects')!.get())
      .values[0];
    const [{ chars }]: Array<{ chars: number }> = await db.query(
      'SELECT sum(length(search_text) + 1)::int AS chars FROM alert_search',
    );
    expect(projects.value).toBe(2);
    expect(bytes.value).toBe(chars);
  });
});
