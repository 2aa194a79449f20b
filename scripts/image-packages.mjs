#!/usr/bin/env node
// The npm packages some deployables need at run time, so each image carries only its own: the
// bare imports reachable from their entry points in dist/ (following the relative imports of
// the compiled sources), then every package those depend on, as installed in node_modules.
//
//   node scripts/image-packages.mjs dist/apps/api/main.js ...          prints the packages
//   node scripts/image-packages.mjs --prune dist/apps/api/main.js ...  removes all others
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const IMPORT =
  /(?:^|[\s;}])(?:import|export)\s*(?:[^'";]*?\sfrom\s*)?["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)/g;
const BUILTIN = new Set(builtinModules);

/** The package a bare specifier names: `@scope/name/sub` → `@scope/name`. */
export function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Bare imports reachable from the entry files through their relative imports. */
export function bareImports(entries) {
  const seen = new Set();
  const packages = new Set();
  const queue = entries.map((entry) => resolve(entry));
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2];
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        queue.push(existsSync(target) ? target : `${target}.js`);
      } else if (!specifier.startsWith('node:') && !BUILTIN.has(specifier)) {
        packages.add(packageOf(specifier));
      }
    }
  }
  return packages;
}

/** The installed directory of `name` as seen from `from` (a package directory or the root). */
function installed(root, from, name) {
  for (let directory = from; ; directory = dirname(directory)) {
    const candidate = join(directory, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (directory === root || dirname(directory) === directory) return null;
  }
}

/**
 * The top-level node_modules entries the packages need, their dependencies included. An optional
 * peer dependency is the application's choice, as with npm: it is kept when package.json lists it
 * under dependencies (or something else needs it), so a build-time tool installed for development
 * (typescript, an optional peer of @nestjs/swagger's compiler plugin) stays out of the images.
 */
export function closure(root, packages) {
  const chosen = new Set(
    Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).dependencies ?? {}),
  );
  const keep = new Set();
  const visited = new Set();
  const queue = [...packages].map((name) => [root, name]);
  while (queue.length > 0) {
    const [from, name] = queue.pop();
    const directory = installed(root, from, name);
    if (!directory || visited.has(directory)) continue;
    visited.add(directory);
    const topLevel = directory
      .slice(join(root, 'node_modules').length + 1)
      .split('/node_modules/')[0];
    keep.add(topLevel);
    const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8'));
    const optionalPeer = (name) => manifest.peerDependenciesMeta?.[name]?.optional === true;
    const peers = Object.keys(manifest.peerDependencies ?? {}).filter(
      (name) => !optionalPeer(name) || chosen.has(name),
    );
    for (const dependency of [
      ...Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies }),
      ...peers,
    ]) {
      queue.push([directory, dependency]);
    }
  }
  return keep;
}

/** Top-level entries of node_modules (`name` or `@scope/name`). */
function topLevelPackages(root) {
  const modules = join(root, 'node_modules');
  return readdirSync(modules)
    .filter((entry) => !entry.startsWith('.'))
    .flatMap((entry) =>
      entry.startsWith('@')
        ? readdirSync(join(modules, entry)).map((name) => `${entry}/${name}`)
        : [entry],
    );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const prune = args[0] === '--prune';
  const entries = prune ? args.slice(1) : args;
  if (entries.length === 0) {
    process.stderr.write('usage: image-packages.mjs [--prune] <entry.js>...\n');
    process.exit(2);
  }
  const root = process.cwd();
  const keep = closure(root, bareImports(entries));
  if (!prune) {
    process.stdout.write(`${[...keep].sort().join('\n')}\n`);
  } else {
    const removed = topLevelPackages(root).filter((name) => !keep.has(name));
    for (const name of removed) rmSync(join(root, 'node_modules', name), { recursive: true });
    rmSync(join(root, 'node_modules', '.bin'), { recursive: true, force: true });
    process.stdout.write(`kept ${keep.size} packages, removed ${removed.length}\n`);
  }
}
