import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AlertsPruneProcessor } from '@platform/alerting';
import { JobQueue, QueueName } from '@platform/queue';
import { FakeClock } from '@platform/testing';
import { DataSource } from 'typeorm';
import { insightsWindow } from '../../libs/escalation/src/insights/insights-window.js';
import { InsightsRepository } from '../../libs/escalation/src/insights/insights.repository.js';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertingTeam, alertsProject } from '../support/alerting.js';
import { bearer, mintToken, type TestAccount } from '../support/identity.js';
import { rawInsights, rawMtta, rollupDrift } from './insights-reference.js';

type Row = Record<string, unknown>;

const NOW = '2026-03-10T12:00:00.000Z';
const DAY_MS = 86_400_000;
const WINDOWS = [7, 30, 90] as const;

const at = (base: string, days: number, ms = 0) =>
  new Date(new Date(base).getTime() + days * DAY_MS + ms).toISOString();

/** One alert as Alertmanager sends it. */
const am = (
  fingerprint: string,
  { alertname, severity = 'warning', status = 'firing', startsAt = NOW }: Row = {},
): Row => ({
  status,
  labels: {
    ...(alertname === undefined ? {} : { alertname }),
    severity,
    fingerprint_label: fingerprint,
  },
  annotations: { summary: `alert ${fingerprint}` },
  startsAt,
  endsAt: status === 'resolved' ? startsAt : '0001-01-01T00:00:00Z',
  generatorURL: 'http://prometheus:9090/graph',
  fingerprint,
});

describe('alert insights rollups', () => {
  let t: MailingTestApp;
  let db: DataSource;
  let owner: TestAccount;
  let developer: TestAccount;
  let projectId: string;
  let otherProjectId: string;
  let mttaProjectId: string;
  const tokens: Record<string, string> = {};
  /** Static tokens (sessions would expire as the clock moves): the owner's and the developer's. */
  const apiTokens = new Map<TestAccount, string>();

  const ingest = async (alerts: Row[], project = projectId) => {
    const res = await t
      .request()
      .post(`/projects/${project}/alerts`)
      .set(bearer(tokens[project]))
      .send({
        version: '4',
        groupKey: '{}:{}',
        status: 'firing',
        receiver: 'platform',
        groupLabels: {},
        commonLabels: {},
        commonAnnotations: {},
        externalURL: 'http://alertmanager:9093',
        alerts,
      });
    expect([res.status, res.body.data?.errors]).toEqual([200, []]);
  };
  const alertId = async (fingerprint: string, project = projectId) =>
    (
      await db.query<Array<{ id: string }>>(
        'SELECT id FROM alert WHERE project_id = $1 AND fingerprint = $2',
        [project, fingerprint],
      )
    )[0].id;
  const ack = async (fingerprint: string, who = owner, project = projectId) =>
    t
      .request()
      .post(`/projects/${project}/alerts/${await alertId(fingerprint, project)}/ack`)
      .set(bearer(apiTokens.get(who)!))
      .expect(200);
  const unack = async (fingerprint: string, project = projectId) =>
    t
      .request()
      .delete(`/projects/${project}/alerts/${await alertId(fingerprint, project)}/ack`)
      .set(bearer(apiTokens.get(owner)!))
      .expect(200);
  const insights = async (project: string, days: number) =>
    (
      await t
        .request()
        .get(`/projects/${project}/alerts/insights?days=${days}`)
        .set(bearer(apiTokens.get(owner)!))
        .expect(200)
    ).body.data as Row;

  /** Every window answers what the raw rows say, and every rollup row agrees with them. */
  /** The retention prune's cutoff day, once it ran: older timeline events stay counted. */
  let eventsAfter: string | undefined;
  const expectExact = async (projects: string[] = [projectId]) => {
    for (const project of projects)
      for (const days of WINDOWS)
        expect([days, await insights(project, days)]).toEqual([
          days,
          await rawInsights(db, project, t.clock.now(), days),
        ]);
    expect(await rollupDrift(db, { eventsAfter })).toEqual({});
  };

  const rollups = () =>
    db.query(
      `SELECT * FROM (SELECT 'alert' AS t, to_json(r)::text AS r FROM insights_alert_day r
                      UNION ALL SELECT 'sample', to_json(r)::text FROM insights_ack_sample r
                      UNION ALL SELECT 'ack', to_json(r)::text FROM insights_ack_day r
                      UNION ALL SELECT 'event', to_json(r)::text FROM insights_event_day r) r
        ORDER BY t, r`,
    );

  beforeAll(async () => {
    t = await createMailingApiTestApp({ clock: new FakeClock(NOW) });
    db = t.get(DataSource);
    // Dispatch jobs stay queued: only what ingest, acknowledgement and the statements below
    // write is counted.
    await t.get(JobQueue).queue(QueueName.Escalations).pause();
    ({ owner, developer, projectId, otherProjectId } = await alertingTeam(t, 'Rollup Org'));
    mttaProjectId = await alertsProject(t, owner, 'mtta');
    for (const who of [owner, developer])
      apiTokens.set(who, await mintToken(t, who.jwt, ['alerts:*']));
    for (const project of [projectId, otherProjectId])
      tokens[project] = (
        await t
          .request()
          .post(`/projects/${project}/alert_ingest_tokens`)
          .set(bearer(owner.jwt))
          .expect(201)
      ).body.data.token as string;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('follows ingest, acknowledgements, refirings, renames and escalations exactly', async () => {
    const names = ['DiskFull', 'HighCpu', 'Latency', '', undefined];
    const severities = ['critical', 'high', 'warning', 'info'];
    const spec = (i: number) => ({
      alertname: names[i % 5],
      severity: severities[i % 4],
      // from 100 days before now up to now, some on a window's first day
      startsAt: at(NOW, -100 + i * 4.2, i * 1_234),
    });
    const first = (i: number) => am(`fp${i}`, spec(i));
    // First firings recorded at different times (events count by when they were recorded).
    for (const [batch, recordedAt] of [
      [[0, 1, 2, 3, 4, 5, 6, 7], at(NOW, -95)],
      [[8, 9, 10, 11, 12, 13, 14, 15], at(NOW, -29.6)],
      [[16, 17, 18, 19, 20], at(NOW, -6.9)],
      [[21, 22, 23, 24], NOW],
    ] as Array<[number[], string]>) {
      t.clock.set(recordedAt);
      await ingest(batch.map(first));
    }
    t.clock.set(NOW);
    await expectExact();

    // A redelivery changes no rollup.
    const before = await rollups();
    await ingest(Array.from({ length: 25 }, (_, i) => first(i)));
    expect(await rollups()).toEqual(before);

    // Acknowledgements at various delays, some twice (the earliest counts), some by e-mail link
    // in effect (another account later).
    for (const [i, delay] of [
      [3, 30_000],
      [7, 2.5],
      [11, 3_600],
      [16, 0.001],
      [18, 86_400 * 2],
      [20, 17],
      [22, 600],
      [23, 1_000],
      [24, 61.5],
    ] as Array<[number, number]>) {
      t.clock.set(at(spec(i).startsAt, 0, delay * 1000));
      await ack(`fp${i}`);
      t.clock.advance({ seconds: 5 });
      await ack(`fp${i}`, developer);
    }
    t.clock.set(NOW);
    await expectExact();

    // Resolutions, refirings (new starts_at: the kept acknowledgement makes a 0 sample for fp7,
    // a positive one where the new start is earlier), new severities, renames with and without
    // an event in the same statement.
    t.clock.set(at(NOW, -1));
    await ingest([
      am('fp7', { ...spec(7), status: 'resolved' }),
      am('fp16', { ...spec(16), status: 'resolved' }),
      am('fp24', { ...spec(24), status: 'resolved' }),
      am('fp20', { ...spec(20), alertname: 'Renamed', severity: 'critical' }),
      am('fp21', { ...spec(21), alertname: names[1], severity: 'info' }),
    ]);
    t.clock.set(at(NOW, -0.5));
    await ingest([
      am('fp7', { alertname: 'RenamedOnRefire', severity: 'high', startsAt: at(NOW, -0.6) }),
      am('fp16', { ...spec(16), startsAt: at(NOW, -8) }),
      am('fp24', { ...spec(24), startsAt: at(NOW, -2) }),
    ]);
    t.clock.set(NOW);
    await expectExact();

    // Un-acknowledging removes every acknowledgement; acknowledging again counts anew.
    await unack('fp3');
    await unack('fp22');
    await unack('fp0'); // never acknowledged
    t.clock.set(at(NOW, -0.2));
    await ack('fp22', developer);
    t.clock.set(NOW);
    await expectExact();

    // Escalations: opened in one statement, then moved on by multi-row statements as the
    // engine does (exhausted, repeats started and dropped, resolved), and ledger rows.
    const ids = await Promise.all([2, 5, 9, 13, 17, 19, 21, 23].map((i) => alertId(`fp${i}`)));
    await db.query(
      `INSERT INTO escalation_instance (project_id, alert_id, fired_event_id, chain_snapshot,
                                        state, opened_at, updated_at)
       SELECT $1, id, gen_random_uuid(), '{}', 'active', $3::timestamptz - i * interval '4 days',
              $3
         FROM unnest($2::uuid[]) WITH ORDINALITY AS x (id, i)`,
      [projectId, ids, NOW],
    );
    const instances = await db.query<Array<{ id: string }>>(
      'SELECT id FROM escalation_instance WHERE project_id = $1 ORDER BY opened_at',
      [projectId],
    );
    const some = (...n: number[]) => n.map((i) => instances[i].id);
    await db.query(`UPDATE escalation_instance SET updated_at = $2 WHERE id = ANY ($1::uuid[])`, [
      some(0, 1, 2, 3, 4, 5, 6, 7),
      NOW,
    ]);
    await db.query(
      `UPDATE escalation_instance SET state = 'exhausted', exhausted_at = $2 WHERE id = ANY ($1::uuid[])`,
      [some(0, 3, 6), NOW],
    );
    await db.query(
      'UPDATE escalation_instance SET repeat_count = repeat_count + 1 WHERE id = ANY ($1::uuid[])',
      [some(1, 3, 5, 7)],
    );
    await ack('fp17'); // halts its instance
    await db.query(
      `UPDATE escalation_instance SET state = 'active', repeat_count = 0, generation = generation + 1
        WHERE id = ANY ($1::uuid[])`,
      [some(5, 4)],
    );
    await db.query(
      `UPDATE escalation_instance SET state = 'resolved', resolved_at = $2 WHERE id = ANY ($1::uuid[])`,
      [some(0, 2, 7), NOW],
    );
    await db.query(
      `INSERT INTO escalation_ledger (project_id, alert_id, account_id, contact_label, action,
                                      channel, created_at)
       SELECT $1, $2, CASE WHEN i % 5 = 0 THEN NULL ELSE (ARRAY[$3, $4]::uuid[])[1 + i % 2] END,
              CASE WHEN i % 5 = 0 THEN 'NOC' END,
              (ARRAY['notified', 'called', 'acked'])[1 + i % 3],
              (ARRAY['in_app', 'email', 'phone', 'sms'])[1 + i % 4],
              $5::timestamptz - i * interval '9 hours 7 minutes'
         FROM generate_series(1, 300) AS i`,
      [projectId, ids[0], owner.accountId, developer.accountId, NOW],
    );
    await expectExact();

    // Other instants: the window's first day starts at midnight, ends a millisecond before it,
    // or lies days ahead.
    for (const now of [
      '2026-03-10T00:00:00.000Z',
      '2026-03-09T23:59:59.999Z',
      at(spec(22).startsAt, 7),
      at(NOW, 3.3),
    ]) {
      t.clock.set(now);
      await expectExact();
    }
  });

  it('keeps answering exactly after the retention prune of old timeline events', async () => {
    t.clock.set(at(NOW, 12));
    const pruned = await t.get(AlertsPruneProcessor).prune();
    expect(pruned.alertEvents).toBeGreaterThan(0);
    const cutoff = at(NOW, 12 - 90).slice(0, 10);
    eventsAfter = cutoff;
    await expectExact();
    // Days before the cutoff keep their counts; no window reaches them.
    const [{ kept }] = await db.query<Array<{ kept: number }>>(
      `SELECT coalesce(sum(events), 0)::int AS kept FROM insights_event_day
        WHERE project_id = $1 AND day < $2`,
      [projectId, cutoff],
    );
    expect(kept).toBeGreaterThan(0);
    t.clock.set(NOW);
  });

  it('answers the MTTA percentiles percentile_cont gives over thousands of samples', async () => {
    const project = mttaProjectId;
    await db.query(
      `INSERT INTO alert (project_id, fingerprint, status, severity, labels, starts_at,
                          last_received_at, created_at, updated_at)
       SELECT $1, 'm' || i, 'resolved', 'warning', '{}', s, s, s, s
         FROM generate_series(1, 3000) AS i,
              LATERAL (SELECT $2::timestamptz - make_interval(secs => (i * 2903.7)::float8)) x (s)`,
      [project, NOW],
    );
    // Latencies: acknowledged before the start (0), sub-second with microseconds, seconds to
    // hours, a few days; equal values repeat. A sixth of the alerts get a second, later one.
    await db.query(
      `INSERT INTO alert_acknowledgement (alert_id, channel, account_id, created_at)
       SELECT a.id, 'in_app', $2::uuid, a.starts_at + make_interval(secs => l.seconds)
         FROM alert a,
              LATERAL (SELECT substr(a.fingerprint, 2)::int AS i) n,
              LATERAL (SELECT CASE n.i % 10
                                WHEN 0 THEN -30
                                WHEN 1 THEN (n.i % 997) / 1000.0 + (n.i % 7) / 1e6
                                WHEN 2 THEN 42
                                WHEN 3 THEN 16 + (n.i % 113) / 7.0
                                WHEN 9 THEN 86400 * (1 + n.i % 3) + n.i
                                ELSE power(1.0037, n.i % 2000) END AS seconds) l
        WHERE a.project_id = $1 AND n.i % 13 <> 0
       UNION ALL
       SELECT a.id, 'email', $2::uuid, a.starts_at + interval '5 days'
         FROM alert a WHERE a.project_id = $1 AND substr(a.fingerprint, 2)::int % 6 = 0`,
      [project, owner.accountId],
    );
    // Un-acknowledging some in one statement.
    await db.query(
      `DELETE FROM alert_acknowledgement k USING alert a
        WHERE a.id = k.alert_id AND a.project_id = $1 AND substr(a.fingerprint, 2)::int % 11 = 0`,
      [project],
    );
    const repository = t.get(InsightsRepository);
    for (const now of [NOW, '2026-03-10T00:00:00.000Z', '2026-02-01T07:31:11.123Z']) {
      t.clock.set(now);
      for (const days of WINDOWS) {
        const window = insightsWindow(new Date(now), days);
        expect([now, days, await repository.mtta(project, window)]).toEqual([
          now,
          days,
          await rawMtta(db, project, window.since),
        ]);
      }
      await expectExact([project]);
    }
    t.clock.set(NOW);
  });

  it('stays exact under concurrent ingest, acknowledgement and escalation writers', async () => {
    const fingerprints = Array.from({ length: 40 }, (_, i) => `c${i}`);
    const alertOf = (i: number, round: number) =>
      am(fingerprints[i], {
        alertname: `Name${(i + round) % 6}`,
        severity: ['critical', 'high', 'warning', 'info'][(i + round) % 4],
        status: (i + round) % 3 === 0 ? 'resolved' : 'firing',
        startsAt: at(NOW, -((i * 7 + round * 3) % 40), i * 1000),
      });
    for (const project of [projectId, otherProjectId])
      await ingest(
        fingerprints.map((_, i) => alertOf(i, 0)),
        project,
      );
    const ids = await db.query<Array<{ id: string; project_id: string }>>(
      `SELECT id, project_id FROM alert WHERE fingerprint LIKE 'c%' ORDER BY fingerprint`,
    );
    await db.query(
      `INSERT INTO escalation_instance (project_id, alert_id, fired_event_id, chain_snapshot,
                                        state, opened_at, updated_at)
       SELECT project_id, id, gen_random_uuid(), '{}', 'active',
              $2::timestamptz - (i % 9) * interval '1 day', $2
         FROM unnest($1::uuid[]) WITH ORDINALITY AS x (id, i) JOIN alert USING (id)`,
      [ids.map((r) => r.id), NOW],
    );
    const instances = (
      await db.query<Array<{ id: string }>>(
        `SELECT i.id FROM escalation_instance i JOIN alert a ON a.id = i.alert_id
          WHERE a.fingerprint LIKE 'c%' ORDER BY i.id`,
      )
    ).map((r) => r.id);

    // Engine-like transactions: each moves instances of both projects and many days in one
    // statement, and holds its rollup rows a while before committing.
    const engine = (slice: string[], repeats: boolean) =>
      db.transaction(async (manager) => {
        await manager.query(
          repeats
            ? 'UPDATE escalation_instance SET repeat_count = 1 WHERE id = ANY ($1::uuid[])'
            : `UPDATE escalation_instance SET state = 'exhausted', exhausted_at = now()
                WHERE id = ANY ($1::uuid[])`,
          [slice],
        );
        await manager.query('SELECT pg_sleep(0.05)');
      });
    const work: Array<Promise<unknown>> = [];
    for (let round = 1; round <= 6; round += 1) {
      for (const project of [projectId, otherProjectId])
        work.push(
          ingest(
            fingerprints.map((_, i) => alertOf(i, round)),
            project,
          ),
        );
      work.push(ack(fingerprints[round * 5], round % 2 ? owner : developer));
      work.push(ack(fingerprints[round * 5 + 1], owner, otherProjectId));
      if (round % 2 === 0) work.push(unack(fingerprints[(round - 2) * 5]));
      work.push(
        engine(
          instances.filter((_, i) => i % 6 === round - 1),
          round % 2 === 0,
        ),
      );
      work.push(
        engine(
          [...instances].reverse().filter((_, i) => i % 7 === round),
          false,
        ),
      );
    }
    const outcomes = await Promise.allSettled(work);
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    await expectExact([projectId, otherProjectId]);
  });
});
