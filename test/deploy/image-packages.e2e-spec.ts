import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildDeployables, type DeployablesBuild } from '@platform/testing';
// @ts-expect-error: a plain ES module script, typed by its use here
import { bareImports, closure } from '../../scripts/image-packages.mjs';

/*
 * Each image carries only the packages its deployables load (scripts/image-packages.mjs, run by
 * the Dockerfile): the operators' image none of the API's database, queue or mail packages. Each
 * set is checked by loading the deployables' modules with nothing else installed.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const packagesOf = (entries: string[]): Set<string> =>
  closure(ROOT.replace(/\/$/, ''), bareImports(entries)) as Set<string>;

/** Imports the modules in a folder whose node_modules holds only `packages`; the error, if any. */
function loadWith(build: string, packages: Set<string>, modules: string[]): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), 'image-'));
  cpSync(build, join(folder, 'dist'), { recursive: true });
  for (const name of packages) {
    const target = join(folder, 'node_modules', name);
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), target);
  }
  const script = modules.map((m) => `await import('./dist/${m}');`).join('');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      // Packages resolve their own imports from the folder too, not from the full install.
      ['--preserve-symlinks', '--input-type=module', '-e', script],
      { cwd: folder, timeout: 60_000, env: { ...process.env, NODE_ENV: 'production' } },
      (error, _stdout, stderr) => {
        rmSync(folder, { recursive: true, force: true });
        resolve(error ? stderr : '');
      },
    );
  });
}

describe('image packages', () => {
  let build: DeployablesBuild;
  let api: Set<string>;
  let operators: Set<string>;

  beforeAll(() => {
    build = buildDeployables();
    const entry = (app: string) => `${build.folder}/apps/${app}/main.js`;
    api = packagesOf(['api', 'worker', 'migrate'].map(entry));
    operators = packagesOf(['backup-operator', 'groupware-operator'].map(entry));
  });

  afterAll(async () => {
    await build?.remove();
  });

  it("leaves the API's database, queue and mail packages out of the operators' image", () => {
    for (const name of ['typeorm', 'pg', 'bullmq', 'ioredis', 'argon2', 'nodemailer']) {
      expect([name, api.has(name), operators.has(name)]).toEqual([name, true, false]);
    }
    for (const name of ['@kubernetes/client-node', 'yaml', 'prom-client', '@nestjs/core']) {
      expect([name, operators.has(name)]).toEqual([name, true]);
    }
    expect(operators.size).toBeLessThan(api.size);
  });

  it('leaves development tools that are only optional peers out of both images', () => {
    expect(['typescript', api.has('typescript'), operators.has('typescript')]).toEqual([
      'typescript',
      false,
      false,
    ]);
  });

  it('loads every module of the operators with their packages alone', async () => {
    const modules = [
      'libs/backups/src/index.js',
      'libs/groupware/src/index.js',
      'libs/kube/src/index.js',
    ];
    expect(await loadWith(build.folder, operators, modules)).toBe('');
  });

  it('loads every module of the API, the worker and the migration with their packages alone', async () => {
    const modules = [
      'apps/api/api.module.js',
      'apps/worker/worker-processors.module.js',
      'apps/worker/worker-watchers.module.js',
      'libs/schema/src/index.js',
    ];
    expect(await loadWith(build.folder, api, modules)).toBe('');
  });

  it('misses a package it was not given, so the check can fail', async () => {
    const without = new Set([...operators].filter((name) => name !== 'yaml'));
    expect(await loadWith(build.folder, without, ['libs/kube/src/index.js'])).toMatch(
      /Cannot find package 'yaml'/,
    );
  });

  it("misses a package's own dependency it was not given, not only the ones dist imports", async () => {
    const without = new Set([...operators].filter((name) => name !== 'iterare'));
    expect(await loadWith(build.folder, without, ['libs/kube/src/index.js'])).toMatch(
      /Cannot find (package|module) 'iterare'/,
    );
  });
});
