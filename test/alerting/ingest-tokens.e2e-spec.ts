import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { parse } from 'yaml';
import { createApiTestApp } from '../support/api-app.js';
import { seedAccount, seedMember } from '../support/factories.js';
import { alertsProject, createProject } from '../support/alerting.js';
import { bearer, mintToken, type TestAccount } from '../support/identity.js';

const payload = (fingerprint: string) => ({
  version: '4',
  status: 'firing',
  alerts: [
    {
      status: 'firing',
      labels: { alertname: 'DiskFull', severity: 'warning' },
      annotations: { summary: 'disk 95% full' },
      startsAt: '2026-03-10T06:00:00Z',
      endsAt: '0001-01-01T00:00:00Z',
      fingerprint,
    },
  ],
});

describe('alert ingest tokens', () => {
  let t: TestApp;
  let admin: TestAccount;
  let developer: TestAccount;
  let operator: TestAccount;
  let viewer: TestAccount;
  let projectId: string;
  let otherProjectId: string;
  let plainProjectId: string;

  const mint = (projectOrCredential: string, credential?: string) => {
    const [project, token] = credential
      ? [projectOrCredential, credential]
      : [projectId, projectOrCredential];
    return t.request().post(`/projects/${project}/alert_ingest_tokens`).set(bearer(token));
  };
  const ingest = (project: string, headers: Record<string, string>, fingerprint = 'fp-1') =>
    t.request().post(`/projects/${project}/alerts`).set(headers).send(payload(fingerprint));

  beforeAll(async () => {
    t = await createApiTestApp({ withWorker: true });
    admin = await seedAccount(t, 'admin@example.com', 'Ops Org');
    developer = await seedMember(t, admin, 'dev@example.com', 'developer');
    operator = await seedMember(t, admin, 'operator@example.com', 'operator');
    viewer = await seedMember(t, admin, 'viewer@example.com', 'viewer');
    projectId = await alertsProject(t, admin, 'production');
    otherProjectId = await alertsProject(t, admin, 'staging');
    plainProjectId = await createProject(t, admin, 'no alerts');
  });

  afterAll(async () => {
    await t.close();
  });

  describe('minting', () => {
    let minted: Record<string, unknown>;

    beforeAll(async () => {
      const res = await mint(admin.jwt).expect(201);
      minted = res.body.data;
    });

    it('answers 201 with exactly token_id, token, scopes, project_id, the snippet and the severity mapping', () => {
      expect(Object.keys(minted).sort()).toEqual([
        'default_severity',
        'project_id',
        'scopes',
        'severity_map',
        'token',
        'token_id',
        'webhook_config_snippet',
      ]);
      expect(minted.severity_map).toEqual({});
      expect(minted.default_severity).toBeNull();
      expect(minted.token).toMatch(/^hq_ing_\S+$/);
      expect(minted.token_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(minted.scopes).toEqual(['alerts:write']);
      expect(minted.project_id).toBe(projectId);
    });

    it('gives a ready-to-paste Alertmanager receiver with the ingest URL and the token', () => {
      const snippet = minted.webhook_config_snippet as string;
      const config = parse(snippet) as {
        receivers: Array<{ name: string; webhook_configs: Array<Record<string, unknown>> }>;
      };
      expect(config.receivers).toHaveLength(1);
      expect(config.receivers[0].name).toBe('platform-alerts');
      expect(config.receivers[0].webhook_configs).toEqual([
        {
          url: `${t.config.publicUrl}/projects/${projectId}/alerts`,
          send_resolved: true,
          http_config: { authorization: { type: 'Bearer', credentials: minted.token } },
        },
      ]);
      expect(snippet).toContain(`/projects/${projectId}/alerts`);
      expect(snippet).toContain(minted.token as string);
    });

    it('lists the token with the others, as kind ingest bound to the project, without its value', async () => {
      const res = await t.request().get('/tokens').set(bearer(admin.jwt)).expect(200);
      const listed = (res.body.data as Array<Record<string, unknown>>).find(
        (token) => token.token_id === minted.token_id,
      );
      expect(listed).toMatchObject({
        kind: 'ingest',
        project_id: projectId,
        scopes: ['alerts:write'],
        account_id: admin.accountId,
        name: 'Alertmanager ingest',
        last4: (minted.token as string).slice(-4),
      });
      expect(listed).not.toHaveProperty('token');
    });

    it('takes an optional name', async () => {
      const res = await mint(admin.jwt).send({ name: ' am-eu ' }).expect(201);
      const list = await t.request().get('/tokens').set(bearer(admin.jwt)).expect(200);
      expect(
        (list.body.data as Array<Record<string, unknown>>).find(
          (token) => token.token_id === res.body.data.token_id,
        )?.name,
      ).toBe('am-eu');
      const bad = await mint(admin.jwt).send({ name: '   ' }).expect(422);
      expect(bad.body.code).toBe('validation_failed');
    });
  });

  describe('what an ingest token is good for', () => {
    let token: string;

    beforeAll(async () => {
      token = (await mint(admin.jwt).expect(201)).body.data.token;
    });

    it('ingests into its project, as a bearer and as X-Access-Token', async () => {
      const res = await ingest(projectId, bearer(token)).expect(200);
      expect(res.body.data).toEqual({ processed: 1, errors: [] });
      await ingest(projectId, { 'X-Access-Token': token }, 'fp-2').expect(200);
    });

    it('answers 401 on every other route, as if it were no credential', async () => {
      const calls = [
        t.request().get(`/projects/${projectId}`),
        t.request().get('/tokens'),
        t.request().get('/accounts/me'),
        t.request().post(`/projects/${projectId}/alert_ingest_tokens`),
        t
          .request()
          .get(`/organizations/${admin.organizationId}/projects/${projectId}/feature-grants`),
        t.request().get(`/projects/${projectId}/feature_requests`),
        t
          .request()
          .post('/tokens')
          .send({ token: { name: 'x', scopes: ['alerts:read'] } }),
      ];
      for (const call of calls) {
        const res = await call.set(bearer(token));
        expect([res.status, res.body.code]).toEqual([401, 'unauthorized']);
      }
      const viaHeader = await t
        .request()
        .get(`/projects/${projectId}`)
        .set('X-Access-Token', token);
      expect([viaHeader.status, viaHeader.body.code]).toEqual([401, 'unauthorized']);
    });

    it('answers 403 static_token_cross_project on another project', async () => {
      for (const headers of [bearer(token), { 'X-Access-Token': token }]) {
        const res = await ingest(otherProjectId, headers).expect(403);
        expect(res.body).toMatchObject({
          code: 'static_token_cross_project',
          request_id: expect.any(String),
          errors: [
            { code: 'static_token_cross_project', message: expect.any(String), status: 403 },
          ],
        });
      }
    });

    it('answers 404 on a project that does not exist, and 401 there without a valid token', async () => {
      // The token's read brings the path's project along: a missing one is not found, and an
      // anonymous caller is refused before anyone looks at it.
      const missing = '00000000-0000-4000-8000-00000000dead';
      const res = await ingest(missing, bearer(token)).expect(404);
      expect(res.body.code).toBe('not_found');
      const anonymous = await ingest(missing, bearer('hq_ing_nonsense')).expect(401);
      expect(anonymous.body.code).toBe('unauthorized');
    });

    it('stops working once revoked', async () => {
      const minted = (await mint(admin.jwt).expect(201)).body.data;
      await ingest(projectId, bearer(minted.token)).expect(200);
      await t.request().delete(`/tokens/${minted.token_id}`).set(bearer(admin.jwt)).expect(204);
      const res = await ingest(projectId, bearer(minted.token)).expect(401);
      expect(res.body.code).toBe('unauthorized');
    });

    it('answers 401 with the ingest envelope without any credential or with a wrong one', async () => {
      const attempts: Array<Record<string, string>> = [
        {},
        bearer('hq_ing_nonsense'),
        { 'X-Access-Token': 'hq_ing_x' },
      ];
      for (const headers of attempts) {
        const res = await ingest(projectId, headers).expect(401);
        expect(res.body).toMatchObject({
          code: 'unauthorized',
          errors: [{ code: 'unauthorized', status: 401 }],
        });
      }
    });
  });

  describe('who may mint', () => {
    it('a static token with alerts:manage or alerts:*', async () => {
      for (const scopes of [['alerts:manage'], ['alerts:*']]) {
        const apiToken = await mintToken(t, admin.jwt, scopes);
        const res = await mint(apiToken).expect(201);
        expect(res.body.data.scopes).toEqual(['alerts:write']);
        await ingest(projectId, bearer(res.body.data.token)).expect(200);
      }
    });

    it('not a static token with only alert_ingest_tokens:*, or alerts:write', async () => {
      for (const scopes of [['alert_ingest_tokens:*'], ['alerts:write'], ['alert_routes:*']]) {
        const apiToken = await mintToken(t, admin.jwt, scopes);
        const res = await mint(apiToken).expect(403);
        expect(res.body.code).toBe('insufficient_scope');
      }
    });

    it('an org admin and a member with the alerts delete permission', async () => {
      await mint(admin.jwt).expect(201);
      await mint(developer.jwt).expect(201);
    });

    it('not a member without alerts delete (operator) nor a viewer', async () => {
      for (const member of [operator, viewer]) {
        const res = await mint(member.jwt).expect(403);
        expect(res.body.code).toBe('forbidden');
        // Only the ingest route answers with the multi-error envelope.
        expect(res.body).not.toHaveProperty('errors');
      }
    });

    it('not an alerts:manage token of a member who lacks the permission', async () => {
      const apiToken = await mintToken(t, operator.jwt, ['alerts:manage']);
      const res = await mint(apiToken).expect(403);
      expect(res.body.code).toBe('forbidden');
    });

    it('not an ingest token', async () => {
      const token = (await mint(admin.jwt).expect(201)).body.data.token;
      const res = await mint(token).expect(401);
      expect(res.body.code).toBe('unauthorized');
    });

    it('nobody for a project without the alerts capability', async () => {
      const res = await mint(plainProjectId, admin.jwt).expect(403);
      expect(res.body.code).toBe('alerts_capability_not_enabled');
    });
  });

  describe('other credentials on the ingest route', () => {
    it('an API token with alerts:write ingests; alerts:read does not', async () => {
      await ingest(projectId, bearer(await mintToken(t, admin.jwt, ['alerts:write']))).expect(200);
      const res = await ingest(projectId, bearer(await mintToken(t, admin.jwt, ['alerts:read'])));
      expect([res.status, res.body.code]).toEqual([403, 'insufficient_scope']);
      expect(res.body.errors).toEqual([
        { code: 'insufficient_scope', message: res.body.message, status: 403 },
      ]);
    });

    it('a member with alerts:create ingests; a viewer does not', async () => {
      await ingest(projectId, bearer(operator.jwt)).expect(200);
      const res = await ingest(projectId, bearer(viewer.jwt));
      expect([res.status, res.body.code]).toEqual([403, 'forbidden']);
    });

    it('an API token is not limited to one project', async () => {
      const apiToken = await mintToken(t, admin.jwt, ['alerts:write']);
      await ingest(otherProjectId, bearer(apiToken)).expect(200);
    });
  });
});
