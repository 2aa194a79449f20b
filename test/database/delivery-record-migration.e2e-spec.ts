import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  dataSourceOptions,
  migrate,
  type MigrationClass,
  withMaintenanceConnection,
} from '@platform/database';
import { MIGRATIONS } from '@platform/schema';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { DataSource } from 'typeorm';

/** The migrations that move every source's delivery state into the delivery record. */
const FIRST_MOVE = 1764000000034;
const timestampOf = (migration: MigrationClass) => Number(/(\d{13})$/.exec(migration.name)![1]);
const MOVES = MIGRATIONS.filter(
  (m) => timestampOf(m) >= FIRST_MOVE && timestampOf(m) <= 1764000000037,
);

function databaseUrl(name: string): string {
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/platform');
  url.pathname = `/${name}`;
  return url.toString();
}

const T0 = new Date('2026-01-01T10:00:00.000Z');
const T1 = new Date('2026-01-01T10:00:05.000Z');
const T2 = new Date('2026-01-01T10:00:09.000Z');

const ids = {
  notification: randomUUID(),
  page: randomUUID(),
  retryPage: randomUUID(),
  endpointDelivery: randomUUID(),
  organizationDelivery: randomUUID(),
};

/**
 * Rows as the sources wrote them before the delivery record, foreign keys left unchecked
 * (the parents do not matter to the move).
 */
const SEED = `
  SET session_replication_role = replica;
  INSERT INTO notification_delivery
    (id, notification_id, account_id, channel, status, reason, attempts, created_at, updated_at)
  VALUES ('${ids.notification}', NULL, gen_random_uuid(), 'email', 'queued', '451 later', 1,
          '${T0.toISOString()}', '${T1.toISOString()}');
  INSERT INTO escalation_page
    (id, instance_id, project_id, alert_id, generation, repeat_count, step_index, channel,
     account_id, phone_number, status, reason, reply_code, provider_sid, attempts, due_at,
     created_at, sent_at)
  VALUES ('${ids.page}', gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 0, 0, 1, 'sms',
          gen_random_uuid(), '+4915100000001', 'sent', NULL, '123456', 'SM1', 2,
          '${T0.toISOString()}', '${T0.toISOString()}', '${T2.toISOString()}');
  INSERT INTO escalation_page
    (id, instance_id, project_id, alert_id, generation, repeat_count, step_index, channel,
     account_id, status, reason, attempts, due_at, created_at, retry_at)
  VALUES ('${ids.retryPage}', gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 0, 0, 0,
          'email', gen_random_uuid(), 'pending', 'try later', 1, '${T0.toISOString()}',
          '${T0.toISOString()}', '${T2.toISOString()}');
  INSERT INTO webhook_delivery
    (id, endpoint_id, project_id, alert_id, event, payload, status, attempts, last_attempt_at,
     next_attempt_at, created_at)
  VALUES ('${ids.endpointDelivery}', gen_random_uuid(), gen_random_uuid(), NULL, 'endpoint.test',
          '{"type": "endpoint.test"}', 'succeeded', 2, '${T2.toISOString()}', NULL,
          '${T0.toISOString()}');
  INSERT INTO webhook_delivery_attempt
    (delivery_id, attempt, started_at, response_status, response_body, error, duration_ms)
  VALUES ('${ids.endpointDelivery}', 1, '${T1.toISOString()}', 500, 'boom', 'receiver answered 500', 12),
         ('${ids.endpointDelivery}', 2, '${T2.toISOString()}', 200, NULL, NULL, 7);
  INSERT INTO organization_webhook_delivery
    (id, webhook_id, organization_id, event, payload, status, attempts, last_attempt_at,
     next_attempt_at, created_at)
  VALUES ('${ids.organizationDelivery}', gen_random_uuid(), gen_random_uuid(), 'app.deployed',
          '{}', 'failed', 1, '${T1.toISOString()}', NULL, '${T0.toISOString()}');
  INSERT INTO organization_webhook_delivery_attempt
    (delivery_id, attempt, started_at, response_status, response_body, error, duration_ms)
  VALUES ('${ids.organizationDelivery}', 1, '${T1.toISOString()}', NULL, NULL, 'ECONNREFUSED', 3);
  SET session_replication_role = DEFAULT;
`;

describe('the delivery record migrations, on existing rows', () => {
  const name = `platform_delivery_${randomBytes(5).toString('hex')}`;
  const url = databaseUrl(name);
  let client: pg.Client;
  const rows = async (sql: string) => (await client.query(sql)).rows;

  beforeAll(async () => {
    await migrate(
      url,
      MIGRATIONS.filter((m) => timestampOf(m) < FIRST_MOVE),
    );
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(SEED);
    await client.end();
    await migrate(url, MIGRATIONS);
    client = new pg.Client({ connectionString: url });
    await client.connect();
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    await withMaintenanceConnection(url, (admin) =>
      admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
    );
  });

  it('are the four moves, in order', () => {
    expect(MOVES.map((m) => m.name)).toEqual([
      'DeliveryRecord1764000000034',
      'EndpointDeliveryRecord1764000000035',
      'OrganizationWebhookDeliveryRecord1764000000036',
      'PageDeliveryRecord1764000000037',
    ]);
  });

  it('up: one delivery per source row, its attempts as attempt rows, the old columns gone', async () => {
    expect(
      await rows(
        `SELECT id, source, channel, status, reason, attempts, provider_ref, created_at, due_at,
                next_attempt_at, last_attempt_at, finished_at
           FROM delivery ORDER BY source, created_at, id`,
      ),
    ).toEqual(
      [
        [
          ids.endpointDelivery,
          'endpoint_webhook',
          'webhook',
          'sent',
          null,
          2,
          null,
          T0,
          T0,
          null,
          T2,
          T2,
        ],
        ...[
          [ids.page, 'escalation_page', 'sms', 'sent', null, 2, 'SM1', T0, T0, null, T2, T2],
          [
            ids.retryPage,
            'escalation_page',
            'email',
            'pending',
            'try later',
            1,
            null,
            T0,
            T0,
            T2,
            T0,
            null,
          ],
        ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
        [
          ids.notification,
          'notification',
          'email',
          'pending',
          '451 later',
          1,
          null,
          T0,
          T0,
          null,
          T1,
          null,
        ],
        [
          ids.organizationDelivery,
          'organization_webhook',
          'webhook',
          'failed',
          'ECONNREFUSED',
          1,
          null,
          T0,
          T0,
          null,
          T1,
          T1,
        ],
      ].map(
        ([
          id,
          source,
          channel,
          status,
          reason,
          attempts,
          provider_ref,
          created_at,
          due_at,
          next_attempt_at,
          last_attempt_at,
          finished_at,
        ]) => ({
          id,
          source,
          channel,
          status,
          reason,
          attempts,
          provider_ref,
          created_at,
          due_at,
          next_attempt_at,
          last_attempt_at,
          finished_at,
        }),
      ),
    );
    expect(
      await rows(
        `SELECT delivery_id, attempt, started_at, duration_ms, outcome, reason, response_status,
                response_body
           FROM delivery_attempt ORDER BY delivery_id, attempt`,
      ),
    ).toEqual(
      [
        {
          delivery_id: ids.endpointDelivery,
          attempt: 1,
          started_at: T1,
          duration_ms: 12,
          outcome: 'failed',
          reason: 'receiver answered 500',
          response_status: 500,
          response_body: 'boom',
        },
        {
          delivery_id: ids.endpointDelivery,
          attempt: 2,
          started_at: T2,
          duration_ms: 7,
          outcome: 'sent',
          reason: null,
          response_status: 200,
          response_body: null,
        },
        {
          delivery_id: ids.organizationDelivery,
          attempt: 1,
          started_at: T1,
          duration_ms: 3,
          outcome: 'failed',
          reason: 'ECONNREFUSED',
          response_status: null,
          response_body: null,
        },
      ].sort((a, b) => a.delivery_id.localeCompare(b.delivery_id) || a.attempt - b.attempt),
    );
    const columns = await rows(
      `SELECT table_name || '.' || column_name AS c FROM information_schema.columns
        WHERE table_schema = 'public'
          AND table_name IN ('notification_delivery', 'escalation_page', 'webhook_delivery',
                             'organization_webhook_delivery')
          AND column_name IN ('status', 'reason', 'attempts', 'provider_sid', 'sent_at',
                              'retry_at', 'due_at', 'last_attempt_at', 'next_attempt_at',
                              'updated_at')`,
    );
    expect(columns).toEqual([]);
    expect(
      await rows(
        `SELECT tablename FROM pg_tables
          WHERE tablename IN ('webhook_delivery_attempt', 'organization_webhook_delivery_attempt')`,
      ),
    ).toEqual([]);
    // The pages and the reply code stay the page's own.
    expect(
      await rows(`SELECT reply_code, phone_number FROM escalation_page WHERE id = '${ids.page}'`),
    ).toEqual([{ reply_code: '123456', phone_number: '+4915100000001' }]);
  });

  it('deleting a source row deletes its delivery and attempts (delivery_forget)', async () => {
    await client.query('BEGIN');
    try {
      await client.query(`DELETE FROM webhook_delivery WHERE id = '${ids.endpointDelivery}'`);
      await client.query(`DELETE FROM escalation_page WHERE id = '${ids.page}'`);
      expect(
        await rows(
          `SELECT id FROM delivery WHERE id IN ('${ids.endpointDelivery}', '${ids.page}')
           UNION ALL SELECT delivery_id FROM delivery_attempt
            WHERE delivery_id = '${ids.endpointDelivery}'`,
        ),
      ).toEqual([]);
      expect(Number((await rows('SELECT count(*) AS n FROM delivery'))[0].n)).toBe(3);
    } finally {
      await client.query('ROLLBACK');
    }
  });

  it('down: the sources get their columns and attempt tables back, and the record goes', async () => {
    const dataSource = new DataSource(dataSourceOptions(url, MIGRATIONS));
    await dataSource.initialize();
    try {
      // The moves and every migration after them, newest first.
      const undone = MIGRATIONS.filter((m) => timestampOf(m) >= FIRST_MOVE).length;
      for (let n = 0; n < undone; n++) await dataSource.undoLastMigration({ transaction: 'each' });
    } finally {
      await dataSource.destroy();
    }
    expect(
      await rows(
        `SELECT channel, status, reason, attempts, created_at, updated_at
           FROM notification_delivery`,
      ),
    ).toEqual([
      {
        channel: 'email',
        status: 'queued',
        reason: '451 later',
        attempts: 1,
        created_at: T0,
        updated_at: T1,
      },
    ]);
    expect(
      await rows(
        `SELECT id, status, reason, provider_sid, attempts, due_at, sent_at, retry_at
           FROM escalation_page ORDER BY status DESC`,
      ),
    ).toEqual([
      {
        id: ids.page,
        status: 'sent',
        reason: null,
        provider_sid: 'SM1',
        attempts: 2,
        due_at: T0,
        sent_at: T2,
        retry_at: null,
      },
      {
        id: ids.retryPage,
        status: 'pending',
        reason: 'try later',
        provider_sid: null,
        attempts: 1,
        due_at: T0,
        sent_at: null,
        retry_at: T2,
      },
    ]);
    for (const [table, id, status, attempts, last] of [
      ['webhook_delivery', ids.endpointDelivery, 'succeeded', 2, T2],
      ['organization_webhook_delivery', ids.organizationDelivery, 'failed', 1, T1],
    ] as const)
      expect(
        await rows(`SELECT id, status, attempts, last_attempt_at, next_attempt_at FROM ${table}`),
      ).toEqual([{ id, status, attempts, last_attempt_at: last, next_attempt_at: null }]);
    expect(
      await rows(
        `SELECT attempt, started_at, response_status, response_body, error, duration_ms
           FROM webhook_delivery_attempt ORDER BY attempt`,
      ),
    ).toEqual([
      {
        attempt: 1,
        started_at: T1,
        response_status: 500,
        response_body: 'boom',
        error: 'receiver answered 500',
        duration_ms: 12,
      },
      {
        attempt: 2,
        started_at: T2,
        response_status: 200,
        response_body: null,
        error: null,
        duration_ms: 7,
      },
    ]);
    expect(await rows(`SELECT attempt, error FROM organization_webhook_delivery_attempt`)).toEqual([
      { attempt: 1, error: 'ECONNREFUSED' },
    ]);
    expect(
      await rows(`SELECT to_regclass('delivery') AS t, to_regclass('delivery_attempt') AS a`),
    ).toEqual([{ t: null, a: null }]);
  });
});
