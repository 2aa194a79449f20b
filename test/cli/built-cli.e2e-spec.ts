import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDeployables, type DeployablesBuild, type TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';

const ADMIN = { login: 'admin@example.com', password: 'correct horse battery staple' };

/** `platform` as the package's bin runs it: the build's main.js, in a process of its own. */
describe('the built platform CLI', () => {
  let t: TestApp;
  let build: DeployablesBuild;
  const configHome = mkdtempSync(join(tmpdir(), 'platform-cli-'));

  const platform = (args: string[], stdin = '') =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [`${build.folder}/apps/cli/main.js`, ...args],
        {
          env: { PATH: process.env.PATH, XDG_CONFIG_HOME: configHome, PLATFORM_API_URL: t.baseUrl },
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
      child.stdin!.end(stdin);
    });

  beforeAll(async () => {
    build = buildDeployables();
    t = await createApiTestApp({ listen: true, config: { platformAdmin: ADMIN } });
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await build?.remove();
  });

  it('exits 3 before login, 2 on a usage error', async () => {
    expect(await platform(['orgs', 'list'])).toEqual({
      code: 3,
      stdout: '',
      stderr: 'platform: not logged in: run `platform login`\n',
    });
    expect((await platform(['orgs', 'nope'])).code).toBe(2);
  });

  it('exits 2 when stdin ends before the login prompt is answered', async () => {
    expect(await platform(['login'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'Login: platform: no answer: stdin ended\n',
    });
  });

  it('logs in with the login and password read from stdin, then lists as that user', async () => {
    const login = await platform(['login'], `${ADMIN.login}\n${ADMIN.password}\n`);
    expect(login.code).toBe(0);
    expect(login.stderr).toBe('Login: Password: ');
    expect(statSync(`${configHome}/platform/credentials.json`).mode & 0o777).toBe(0o600);
    expect(await platform(['orgs', 'list', '-o', 'json'])).toEqual({
      code: 0,
      stdout: '[]\n',
      stderr: '',
    });
  });
});
