import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';
import { CliUser, TokenUser } from './run-platform.js';

const ADMIN = { login: 'admin@example.com', password: 'correct horse battery staple' };
const MISSING_ID = '00000000-0000-4000-8000-000000000000';

describe('platform CLI: login, organizations, projects and tokens', () => {
  let t: TestApp;
  let user: CliUser;
  let credentialsFile: string;

  beforeAll(async () => {
    t = await createApiTestApp({ listen: true, config: { platformAdmin: ADMIN } });
    user = new CliUser(t.baseUrl!);
    credentialsFile = `${user.configHome}/platform/credentials.json`;
  });

  afterAll(async () => {
    await t.close();
  });

  it('exits 3 before login', async () => {
    expect(await user.run('orgs', 'list')).toEqual({
      code: 3,
      stdout: '',
      stderr: 'platform: not logged in: run `platform login`\n',
    });
  });

  it('exits 3 with the envelope on a wrong password, storing nothing', async () => {
    const result = await user.run('login', '--login', ADMIN.login, '--password', 'wrong');
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^platform: invalid_credentials: .+; run `platform login`\n$/);
    expect(existsSync(credentialsFile)).toBe(false);
  });

  it('login prompts for what its options omit and stores the token with mode 0600', async () => {
    user.answers = [ADMIN.login, ADMIN.password];
    const result = await user.run('login');
    expect(result.code).toBe(0);
    expect(user.prompts).toEqual(['Login: ', 'Password: ']);
    expect(statSync(credentialsFile).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(credentialsFile, 'utf8'));
    expect(stored).toEqual({
      api_url: t.baseUrl,
      token: expect.stringMatching(/^ey/),
      login: ADMIN.login,
      expires_at: expect.any(String),
    });
    expect(result.stdout).toMatch(/^LOGIN\s+EXPIRES_AT\s+CREDENTIALS\nadmin@example\.com\s/);
  });

  it('login with --login and --password prints the session as JSON', async () => {
    const session = await user.json('login', '--login', ADMIN.login, '--password', ADMIN.password);
    expect(session).toEqual({
      login: ADMIN.login,
      expires_at: expect.any(String),
      credentials: credentialsFile,
    });
  });

  it('orgs create and orgs list, in JSON and as a table', async () => {
    const created = await user.json('orgs', 'create', '--name', 'Acme');
    expect(created).toEqual({
      id: expect.any(String),
      name: 'Acme',
      role: 'admin',
      created_at: expect.any(String),
    });
    expect(await user.json('orgs', 'list')).toEqual([created]);
    const table = await user.run('orgs', 'list');
    expect(table).toEqual({
      code: 0,
      stdout: `ID${' '.repeat(36)}NAME  ROLE\n${created.id}  Acme  admin\n`,
      stderr: '',
    });
  });

  it('projects create and projects list, in JSON and as a table', async () => {
    const [org] = await user.json('orgs', 'list');
    const project = await user.json('projects', 'create', '--org', org.id, '--name', 'production');
    expect(project).toEqual({
      id: expect.any(String),
      organization_id: org.id,
      name: 'production',
      created_at: expect.any(String),
    });
    expect(await user.json('projects', 'list', '--org', org.id)).toEqual([project]);
    const table = await user.run('projects', 'list', '-o', 'table', '--org', org.id);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID {36}NAME {8}ORGANIZATION_ID {23}CREATED_AT$/);
    expect(lines[1]).toBe(`${project.id}  production  ${org.id}  ${project.created_at}`);
  });

  it('exits 1 with the error envelope for a 404 and a 422', async () => {
    const notFound = await user.run('projects', 'list', '--org', MISSING_ID);
    expect(notFound.code).toBe(1);
    expect(notFound.stderr).toMatch(/^platform: not_found: .+ \(HTTP 404\)\n$/);
    const [org] = await user.json('orgs', 'list');
    const invalid = await user.run('projects', 'create', '--org', org.id, '--name', '');
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^platform: validation_failed: .*name.* \(HTTP 422\)\n$/);
    expect(invalid.stdout).toBe('');
  });

  it('tokens create, list and revoke; an API token creating an organization gets a 403, exit 1', async () => {
    const minted = await user.json('tokens', 'create', '--name', 'ci', '--scopes', 'alerts:read');
    expect(minted).toMatchObject({ name: 'ci', scopes: ['alerts:read'], kind: 'api' });
    expect(minted.token).toMatch(/^hq_pat_/);
    const listed = await user.json('tokens', 'list');
    expect(listed).toEqual([expect.objectContaining({ token_id: minted.token_id, name: 'ci' })]);
    expect(JSON.stringify(listed)).not.toContain(minted.token);
    const table = await user.run('tokens', 'list');
    expect(table.stdout.split('\n')[0]).toMatch(
      /^TOKEN_ID\s+NAME\s+KIND\s+SCOPES\s+LAST4\s+PROJECT_ID\s+LAST_USED_AT$/,
    );
    expect(table.stdout.split('\n')[1]).toMatch(
      new RegExp(`^${minted.token_id}\\s+ci\\s+api\\s+alerts:read\\s+${minted.last4}\\s+-\\s+-$`),
    );

    const forbidden = await new TokenUser(t.baseUrl!, minted.token).run(
      'orgs',
      'create',
      '--name',
      'Other',
    );
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toBe(
      'platform: interactive_session_required: This operation needs a login session, not a static token (HTTP 403)\n',
    );

    expect(await user.run('tokens', 'revoke', minted.token_id)).toEqual({
      code: 0,
      stdout: '',
      stderr: `revoked token ${minted.token_id}\n`,
    });
    expect(await user.json('tokens', 'list')).toEqual([]);
    const revoked = await new TokenUser(t.baseUrl!, minted.token).run('orgs', 'list');
    expect(revoked.code).toBe(3);
  });

  it('exits 2 on usage errors, naming the problem', async () => {
    expect(await user.run('orgs', 'frobnicate')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'platform: unknown command: orgs frobnicate\n',
    });
    expect((await user.run('projects', 'list')).stderr).toBe(
      'platform: missing --org; usage: platform projects list --org <value>\n',
    );
    expect((await user.run('orgs', 'list', '--bogus')).code).toBe(2);
    expect(await user.run('orgs', 'list', '--output', 'yaml')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'platform: --output must be json or table, not yaml\n',
    });
    expect((await user.run('tokens', 'revoke')).code).toBe(2);
  });

  it('--help lists the commands with the exit codes', async () => {
    const help = await user.run('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('  projects create ');
    expect(help.stdout).toContain('PLATFORM_TOKEN, when set, is used instead of the session');
    expect(help.stdout).toContain('Exit codes: 0 ok, 1 API error, 2 usage error, 3 not logged in.');
  });

  it('logout ends the session and deletes the stored token', async () => {
    const token = JSON.parse(readFileSync(credentialsFile, 'utf8')).token;
    expect(await user.run('logout')).toEqual({
      code: 0,
      stdout: '',
      stderr: `logged out of ${t.baseUrl}\n`,
    });
    expect(existsSync(credentialsFile)).toBe(false);
    expect((await new TokenUser(t.baseUrl!, token).run('orgs', 'list')).code).toBe(3);
    expect((await user.run('orgs', 'list')).code).toBe(3);
    expect((await user.run('logout')).code).toBe(3);
  });
});
