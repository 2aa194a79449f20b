#!/usr/bin/env node
// The package registry reachable here serves only this platform's prebuilt binaries, so
// `npm install` leaves other platforms' optional binary packages (swc, msgpackr, ...) out of
// package-lock.json, and `npm ci` then refuses the lock as out of sync. This adds those
// entries back with the os/cpu/libc their names state, exactly as a lock written elsewhere
// would hold them; npm skips them on non-matching machines without fetching anything.
// Run after changing dependencies: `npm install && npm run lock:complete`.
import { readFileSync, writeFileSync } from 'node:fs';

const OS = [
  'darwin',
  'linux',
  'win32',
  'freebsd',
  'android',
  'openharmony',
  'sunos',
  'aix',
  'netbsd',
  'openbsd',
];
const CPU = {
  arm64: 'arm64',
  x64: 'x64',
  ia32: 'ia32',
  arm: 'arm',
  ppc64: 'ppc64',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
  wasm32: 'wasm32',
};

function platformOf(name) {
  const tokens = name.split('/').pop().split('-');
  const os = tokens.find((t) => OS.includes(t));
  const cpu = tokens.map((t) => CPU[t]).find(Boolean);
  const libc = tokens.some((t) => t.startsWith('musl'))
    ? 'musl'
    : os === 'linux' && tokens.some((t) => t.startsWith('gnu'))
      ? 'glibc'
      : undefined;
  return { os, cpu, libc };
}

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
let added = 0;
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [dependency, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const base =
      location === ''
        ? 'node_modules'
        : location.replace(/node_modules\/(@[^/]+\/)?[^/]+$/, 'node_modules');
    const target = `${base}/${dependency}`;
    const hoisted = `node_modules/${dependency}`;
    if (lock.packages[target] || lock.packages[hoisted]) continue;
    const { os, cpu, libc } = platformOf(dependency);
    if (!os && !cpu) {
      console.warn(`skipped ${dependency}: no platform in its name`);
      continue;
    }
    lock.packages[hoisted] = {
      version: range.replace(/^[\^~=]/, ''),
      ...(cpu ? { cpu: [cpu] } : {}),
      dev: entry.dev,
      ...(libc ? { libc: [libc] } : {}),
      license: entry.license,
      optional: true,
      ...(os ? { os: [os] } : {}),
    };
    if (lock.packages[hoisted].dev === undefined) delete lock.packages[hoisted].dev;
    added += 1;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) =>
    a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0,
  ),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform package entries`);
