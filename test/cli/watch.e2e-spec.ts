import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { eventually, type TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';
import { CliUser, TokenUser } from './run-platform.js';

const ADMIN = { login: 'admin@example.com', password: 'correct horse battery staple' };

describe('platform alerts list --watch', () => {
  let t: TestApp;
  let user: CliUser;
  let project: string;
  let ingestToken: string;

  beforeAll(async () => {
    t = await createApiTestApp({
      listen: true,
      withWorker: true,
      config: { platformAdmin: ADMIN },
    });
    user = new CliUser(t.baseUrl!);
    await user.json('login', '--login', ADMIN.login, '--password', ADMIN.password);
    const org = await user.json('orgs', 'create', '--name', 'Acme');
    project = (await user.json('projects', 'create', '--org', org.id, '--name', 'production')).id;
    const { token: jwt } = JSON.parse(
      readFileSync(`${user.configHome}/platform/credentials.json`, 'utf8'),
    );
    const me = (await t.request().get('/accounts/me').set('Authorization', `Bearer ${jwt}`)).body
      .data;
    const api = (method: 'put' | 'post', path: string, body: object) =>
      t.request()[method](path).set('Authorization', `Bearer ${jwt}`).send(body);
    await api('put', `/organizations/${org.id}/projects/${project}/feature-grants/alerts`, {
      approved_configuration: { allowed_kinds: null },
    }).expect(200);
    // The admin is notified in-app of every alert of the project: that reaches the cable.
    await api('post', `/projects/${project}/alert_routes`, {
      priority: 1,
      in_app_target_type: 'member',
      in_app_target_member_id: me.id,
    }).expect(201);
    ingestToken = (await api('post', `/projects/${project}/alert_ingest_tokens`, {}).expect(201))
      .body.data.token;
  });

  afterAll(async () => {
    await t.close();
  });

  it('lists, then lists again when a new alert reaches the user; Ctrl-C ends it with 0', async () => {
    const watching = user.run('alerts', 'list', '--project', project, '--watch');
    // Subscribed once the CLI says so on stderr (the run's output is read as it ends).
    const output = user.watch();
    await eventually(() => output.stderr.includes('watching for notifications'));
    expect(output.stdout).toBe('ID  STATUS  SEVERITY  ALERTNAME  ACKNOWLEDGED  STARTS_AT\n');

    await t
      .request()
      .post(`/projects/${project}/alerts`)
      .set('Authorization', `Bearer ${ingestToken}`)
      .send({
        version: '4',
        status: 'firing',
        receiver: 'platform',
        alerts: [
          {
            status: 'firing',
            fingerprint: 'disk-full-db1',
            startsAt: '2026-01-01T00:00:00Z',
            labels: { alertname: 'DiskFull', severity: 'critical', instance: 'db1' },
            annotations: {},
          },
        ],
      })
      .expect(200);
    await eventually(() => output.stdout.includes('DiskFull'));
    user.stopWatching();
    const result = await watching;
    expect(result.code).toBe(0);
    const tables = result.stdout.split(/(?=^ID )/m);
    expect(tables).toHaveLength(2);
    expect(tables[1]).toMatch(
      /\n[0-9a-f-]{36} {2}firing {2}critical {2}DiskFull {3}false {9}2026-/,
    );
  });

  it('exits 3 when the cable refuses a token the alerts route accepts', async () => {
    // The cable needs notifications:read, which this token lacks.
    const minted = await user.json('tokens', 'create', '--name', 'ro', '--scopes', 'alerts:read');
    const reader = new TokenUser(t.baseUrl!, minted.token);
    const result = await reader.run('alerts', 'list', '--project', project, '--watch');
    expect(result).toEqual({
      code: 3,
      stdout: expect.stringMatching(/^ID +STATUS/),
      stderr: 'platform: the API refused the credentials on /cable\n',
    });
  });
});
