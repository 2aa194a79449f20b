import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import type { TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';
import { CliUser } from './run-platform.js';

const ADMIN = { login: 'admin@example.com', password: 'correct horse battery staple' };
const MISSING_ID = '00000000-0000-4000-8000-000000000000';

describe('platform CLI: alerts, routes, silences and test alerts', () => {
  let t: TestApp;
  let user: CliUser;
  let project: string;
  let alert: { id: string; labels: Record<string, string> };

  beforeAll(async () => {
    t = await createApiTestApp({ listen: true, config: { platformAdmin: ADMIN } });
    user = new CliUser(t.baseUrl!);
    await user.json('login', '--login', ADMIN.login, '--password', ADMIN.password);
    const org = await user.json('orgs', 'create', '--name', 'Acme');
    project = (await user.json('projects', 'create', '--org', org.id, '--name', 'production')).id;
    const { token: jwt } = JSON.parse(
      readFileSync(`${user.configHome}/platform/credentials.json`, 'utf8'),
    );
    // What the CLI does not cover: the alerts feature grant and a route.
    await t
      .request()
      .put(`/organizations/${org.id}/projects/${project}/feature-grants/alerts`)
      .set('Authorization', `Bearer ${jwt}`)
      .send({ approved_configuration: { allowed_kinds: null } })
      .expect(200);
    await t
      .request()
      .post(`/projects/${project}/alert_routes`)
      .set('Authorization', `Bearer ${jwt}`)
      .send({
        name: 'databases',
        priority: 1,
        matchers: [{ label: 'team', op: 'eq', value: 'db' }],
      })
      .expect(201);
  });

  afterAll(async () => {
    await t.close();
  });

  it('alerts test raises a test alert with the given labels', async () => {
    alert = await user.json(
      'alerts',
      'test',
      '--project',
      project,
      '--labels',
      'alertname=DiskFull,severity=warning',
    );
    expect(alert).toMatchObject({
      project_id: project,
      status: 'firing',
      severity: 'warning',
      acknowledged: false,
      labels: { alertname: 'DiskFull', severity: 'warning', platform_test: 'true' },
    });
  });

  it('alerts list, in JSON and as a table, filtered by --status and --acknowledged', async () => {
    const listed = await user.json('alerts', 'list', '--project', project);
    expect(listed.map((a: { id: string }) => a.id)).toEqual([alert.id]);
    expect(await user.json('alerts', 'list', '-p', project, '--status', 'resolved')).toEqual([]);
    expect(await user.json('alerts', 'list', '-p', project, '--acknowledged', 'true')).toEqual([]);
    const table = await user.run('alerts', 'list', '--project', project);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^ID {36}STATUS {2}SEVERITY {2}ALERTNAME {2}ACKNOWLEDGED {2}STARTS_AT$/,
    );
    expect(lines[1]).toMatch(
      new RegExp(`^${alert.id} {2}firing {2}warning {3}DiskFull {3}false {9}\\d{4}-`),
    );
    expect(lines).toHaveLength(2);
  });

  it('alerts ack and unack print the alert as it is afterwards', async () => {
    const acked = await user.json('alerts', 'ack', alert.id, '--project', project);
    expect(acked).toMatchObject({ id: alert.id, acknowledged: true, acknowledgement_count: 1 });
    expect(await user.json('alerts', 'list', '-p', project, '--acknowledged', 'true')).toEqual([
      expect.objectContaining({ id: alert.id }),
    ]);
    const unacked = await user.run('alerts', 'unack', alert.id, '--project', project);
    expect(unacked.code).toBe(0);
    expect(unacked.stdout).toMatch(new RegExp(`\\n${alert.id} {2}firing {2}warning .* false `));
  });

  it('silences create and list', async () => {
    const endsAt = '2099-01-01T00:00:00.000Z';
    const silence = await user.json(
      'silences',
      'create',
      alert.id,
      '--project',
      project,
      '--ends-at',
      endsAt,
      '--comment',
      'known issue',
    );
    expect(silence).toMatchObject({
      alert_id: alert.id,
      ends_at: endsAt,
      comment: 'known issue',
      active: true,
    });
    expect(await user.json('silences', 'list', alert.id, '--project', project)).toEqual([silence]);
    const table = await user.run('silences', 'list', alert.id, '--project', project);
    expect(table.stdout.split('\n')[0]).toMatch(
      /^ID\s+ALERT_ID\s+ACTIVE\s+STARTS_AT\s+ENDS_AT\s+COMMENT$/,
    );
    expect(table.stdout.split('\n')[1]).toMatch(
      new RegExp(`^${silence.id}  ${alert.id}  true    \\S+  ${endsAt}  known issue$`),
    );
  });

  it('routes list, in JSON and as a table', async () => {
    const routes = await user.json('routes', 'list', '--project', project);
    expect(routes).toEqual([
      expect.objectContaining({
        name: 'databases',
        priority: 1,
        matchers: [{ label: 'team', op: 'eq', value: 'db' }],
        enabled: true,
      }),
    ]);
    const table = await user.run('routes', 'list', '--project', project);
    expect(table.stdout).toBe(
      `ID${' '.repeat(36)}PRIORITY  NAME       ENABLED  MATCHERS\n${routes[0].id}  1         databases  true     team=db\n`,
    );
  });

  it('a test alert from a route takes its labels from the route matchers', async () => {
    const [route] = await user.json('routes', 'list', '--project', project);
    const fromRoute = await user.json('alerts', 'test', '-p', project, '--route', route.id);
    expect(fromRoute.labels).toMatchObject({ team: 'db', platform_test: 'true' });
  });

  it('exits 1 with the envelope for an unknown alert (404) and a past silence (422)', async () => {
    const notFound = await user.run('alerts', 'ack', MISSING_ID, '--project', project);
    expect(notFound.code).toBe(1);
    expect(notFound.stderr).toMatch(/^platform: not_found: .+ \(HTTP 404\)\n$/);
    const past = await user.run(
      'silences',
      'create',
      alert.id,
      '-p',
      project,
      '--ends-at',
      '2000-01-01T00:00:00Z',
      '--comment',
      'late',
    );
    expect(past.code).toBe(1);
    expect(past.stderr).toMatch(/^platform: validation_failed: .*ends_at.* \(HTTP 422\)\n$/);
  });

  it('exits 2 for a bad --status or --labels, without calling the API', async () => {
    expect(await user.run('alerts', 'list', '-p', project, '--status', 'bogus')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'platform: --status must be one of firing, resolved, not bogus\n',
    });
    expect((await user.run('alerts', 'test', '-p', project, '--labels', 'novalue')).stderr).toBe(
      'platform: --labels takes name=value pairs, not novalue\n',
    );
  });
});
