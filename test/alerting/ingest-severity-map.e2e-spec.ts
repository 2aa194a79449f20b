import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createApiTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import { expectError } from '../support/clients/expect-error.js';
import { seedAccount } from '../support/factories.js';
import { bearer, mintToken, type TestAccount } from '../support/identity.js';

type Row = Record<string, unknown>;

const alert = (fingerprint: string, labels: Record<string, string>): Row => ({
  status: 'firing',
  labels: { alertname: 'DiskFull', ...labels },
  annotations: {},
  startsAt: '2026-03-10T06:00:00Z',
  endsAt: '0001-01-01T00:00:00Z',
  fingerprint,
});
const webhook = (...alerts: Row[]) => ({ version: '4', status: 'firing', alerts });

describe('severity mapping of ingest tokens', () => {
  let t: TestApp;
  let db: DataSource;
  let admin: TestAccount;
  let projectId: string;

  const mint = (body: Row) =>
    t
      .request()
      .post(`/projects/${projectId}/alert_ingest_tokens`)
      .set(bearer(admin.jwt))
      .send(body);
  const ingest = (token: string, body: unknown) =>
    t
      .request()
      .post(`/projects/${projectId}/alerts`)
      .set(bearer(token))
      .send(body as object);
  const severityOf = async (fingerprint: string) =>
    (
      (await db.query(
        'SELECT severity, labels FROM alert WHERE project_id = $1 AND fingerprint = $2',
        [projectId, fingerprint],
      )) as Row[]
    )[0];
  const storedMaps = async () =>
    (await db.query('SELECT count(*)::int AS n FROM alert_ingest_severity_map')) as Row[];

  beforeAll(async () => {
    t = await createApiTestApp();
    db = t.get(DataSource);
    admin = await seedAccount(t, 'admin@example.com', 'Ops Org');
    projectId = await alertsProject(t, admin);
  });

  afterAll(async () => {
    await t.close();
  });

  describe('minting', () => {
    it('stores the map with keys lower-cased and shows it with the default', async () => {
      const res = await mint({
        severity_map: { Error: 'high', page: 'critical' },
        default_severity: 'warning',
      }).expect(201);
      expect(res.body.data).toMatchObject({
        severity_map: { error: 'high', page: 'critical' },
        default_severity: 'warning',
      });
      expect(
        await db.query(
          'SELECT project_id, severity_map, default_severity FROM alert_ingest_severity_map WHERE token_id = $1',
          [res.body.data.token_id],
        ),
      ).toEqual([
        {
          project_id: projectId,
          severity_map: { error: 'high', page: 'critical' },
          default_severity: 'warning',
        },
      ]);
    });

    it('shows an empty map and a null default for a token minted without them', async () => {
      const before = await storedMaps();
      const res = await mint({}).expect(201);
      expect(res.body.data).toMatchObject({ severity_map: {}, default_severity: null });
      expect(await storedMaps()).toEqual(before);
    });

    it.each<[string, Row, string]>([
      ['an unknown target severity', { severity_map: { error: 'urgent' } }, 'severity_map'],
      ['an empty key', { severity_map: { '': 'high' } }, 'severity_map'],
      ['a key over 64 characters', { severity_map: { ['k'.repeat(65)]: 'high' } }, 'severity_map'],
      ['keys differing only in case', { severity_map: { a: 'high', A: 'info' } }, 'severity_map'],
      [
        'more than 50 entries',
        {
          severity_map: Object.fromEntries(
            Array.from({ length: 51 }, (_, i) => [`level${i}`, 'info']),
          ),
        },
        'severity_map',
      ],
      ['a map that is an array', { severity_map: ['error'] }, 'severity_map'],
      ['an unknown default severity', { default_severity: 'page' }, 'default_severity'],
    ])('refuses %s with 422 validation_failed and mints nothing', async (_name, body, field) => {
      const tokens = await db.query('SELECT count(*)::int AS n FROM api_token');
      const res = await mint(body);
      expectError(res, 422, 'validation_failed', [field]);
      expect(await db.query('SELECT count(*)::int AS n FROM api_token')).toEqual(tokens);
    });
  });

  describe('ingest', () => {
    let mapped: string;
    let defaulted: string;
    let plain: string;

    beforeAll(async () => {
      mapped = (await mint({ severity_map: { error: 'high', PAGE: 'critical' } }).expect(201)).body
        .data.token;
      defaulted = (await mint({ default_severity: 'info' }).expect(201)).body.data.token;
      plain = (await mint({}).expect(201)).body.data.token;
    });

    it('maps labels case-insensitively, and the four severities too, keeping labels as sent', async () => {
      const res = await ingest(
        mapped,
        webhook(
          alert('m-error', { severity: 'ERROR' }),
          alert('m-page', { severity: 'page' }),
          alert('m-critical', { severity: 'Critical' }),
          alert('m-warning', { severity: 'warning' }),
        ),
      ).expect(200);
      expect(res.body.data).toEqual({ processed: 4, errors: [] });
      expect(await severityOf('m-error')).toEqual({
        severity: 'high',
        labels: { alertname: 'DiskFull', severity: 'ERROR' },
      });
      expect(await severityOf('m-page')).toMatchObject({ severity: 'critical' });
      expect(await severityOf('m-critical')).toMatchObject({ severity: 'critical' });
      expect(await severityOf('m-warning')).toMatchObject({ severity: 'warning' });
    });

    it('refuses what still cannot be mapped exactly as without a map', async () => {
      const res = await ingest(
        mapped,
        webhook(
          alert('m-ok', { severity: 'error' }),
          alert('m-fatal', { severity: 'fatal' }),
          alert('m-none', {}),
        ),
      ).expect(200);
      expect(res.body.data).toEqual({
        processed: 1,
        errors: [
          {
            index: 1,
            fingerprint: 'm-fatal',
            code: 'unknown_severity',
            message:
              'severity "fatal" is not one of critical, high, warning, info nor a key of the ingest token\'s severity_map',
          },
          {
            index: 2,
            fingerprint: 'm-none',
            code: 'missing_severity',
            message: 'labels have no severity',
          },
        ],
      });
      expect(await severityOf('m-fatal')).toBeUndefined();
    });

    it('gives alerts without a severity label the default severity', async () => {
      const res = await ingest(
        defaulted,
        webhook(alert('d-none', {}), alert('d-empty', { severity: '' }), {
          fingerprint: 'd-nolabels',
        }),
      ).expect(200);
      expect(res.body.data).toEqual({ processed: 3, errors: [] });
      expect(await severityOf('d-none')).toEqual({
        severity: 'info',
        labels: { alertname: 'DiskFull' },
      });
      expect(await severityOf('d-empty')).toMatchObject({ severity: 'info' });
      expect(await severityOf('d-nolabels')).toEqual({ severity: 'info', labels: {} });
    });

    it('keeps exact matching for a token without a map (or with a default only)', async () => {
      const res = await ingest(
        plain,
        webhook(alert('p-error', { severity: 'error' }), alert('p-ok', { severity: 'high' })),
      ).expect(200);
      expect(res.body.data.errors).toEqual([
        {
          index: 0,
          fingerprint: 'p-error',
          code: 'unknown_severity',
          message: 'severity "error" is not one of critical, high, warning, info',
        },
      ]);
      const defaultOnly = await ingest(
        defaulted,
        webhook(alert('d-high', { severity: 'High' })),
      ).expect(502);
      expect(defaultOnly.body.errors[0]).toMatchObject({ code: 'unknown_severity' });
    });

    it('does not apply to API tokens with alerts:write', async () => {
      const apiToken = await mintToken(t, admin.jwt, ['alerts:write']);
      const res = await ingest(apiToken, webhook(alert('a-page', { severity: 'page' })));
      expect(res.status).toBe(502);
      expect(res.body.errors[0]).toMatchObject({ code: 'unknown_severity', status: 422 });
    });

    it('answers a payload whose only alert has no severity label with the 502 ingest envelope', async () => {
      const res = await ingest(plain, webhook(alert('p-none', {}))).expect(502);
      expect(res.body).toEqual({
        code: 'nothing_processed',
        message: 'None of the 1 alerts could be processed',
        source_service: 'alerting',
        source_operation: 'alertIngest.ingest',
        retryable: false,
        request_id: res.headers['x-request-id'],
        details: {
          processed: 0,
          errors: [
            {
              index: 0,
              fingerprint: 'p-none',
              code: 'missing_severity',
              message: 'labels have no severity',
            },
          ],
        },
        errors: [
          {
            code: 'missing_severity',
            message: 'alerts[0]: labels have no severity',
            status: 422,
            index: 0,
            fingerprint: 'p-none',
          },
        ],
      });
      expect(await severityOf('p-none')).toBeUndefined();
    });
  });
});
