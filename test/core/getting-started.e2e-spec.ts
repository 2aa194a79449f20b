import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { parse } from 'yaml';
import { createApiTestApp } from '../support/api-app.js';

/*
 * The README's getting-started block, run as written with bash against an API listening on a
 * port (only its address changed): from a platform admin's login to an acknowledged alert.
 */

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
const ADMIN = { login: 'admin@example.com', password: 'correct horse battery staple' };

function gettingStartedScript(api: string): string {
  const block = /<!-- getting-started -->\s*```sh\n([\s\S]*?)```\s*<!-- \/getting-started -->/.exec(
    README,
  );
  if (!block) throw new Error('no getting-started block in the README');
  const script = block[1].replace('API=http://localhost:3000', `API=${api}`);
  expect(script).not.toBe(block[1]);
  return script;
}

function bash(script: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      ['-euo', 'pipefail', '-c', script],
      { env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

describe('README getting started', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createApiTestApp({ listen: true, config: { platformAdmin: ADMIN } });
  });

  afterAll(async () => {
    await t.close();
  });

  it('goes from the platform admin to an acknowledged alert by copy and paste', async () => {
    const output = await bash(gettingStartedScript(t.baseUrl!), {
      PLATFORM_ADMIN_LOGIN: ADMIN.login,
      PLATFORM_ADMIN_PASSWORD: ADMIN.password,
    });
    const lines = output.trimEnd().split('\n');
    // The receiver to paste, the ingest answer, then the acknowledgement.
    expect(lines.at(-1)).toBe('true');
    expect(JSON.parse(lines.at(-2)!)).toEqual({ processed: 1, errors: [] });
    const snippet = parse(lines.slice(0, -2).join('\n')) as {
      receivers: Array<{ name: string; webhook_configs: Array<{ url: string }> }>;
    };
    expect(snippet.receivers[0].name).toBe('platform-alerts');
    expect(snippet.receivers[0].webhook_configs[0].url).toMatch(
      /\/projects\/[0-9a-f-]{36}\/alerts$/,
    );
  });
});
