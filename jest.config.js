import { cpus } from 'node:os';

// Jest runs the ES modules natively (node --experimental-vm-modules): NestJS 12 and
// @kubernetes/client-node 2 ship ESM only, so tests load exactly what production loads.
const shared = {
  rootDir: '.',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { swcrc: true }] },
  moduleNameMapper: {
    '^@platform/(.*)$': '<rootDir>/libs/$1/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  setupFiles: ['<rootDir>/test/support/setup.ts'],
  testEnvironment: 'node',
};

export default {
  // Integration files wait on PostgreSQL and Redis more than on the CPU: use at least two.
  maxWorkers: Math.max(2, cpus().length),
  // Native ES modules are loaded afresh for every test file and not all of it is collected:
  // a worker grew to 4 GB over the suite and spent its time collecting. A worker above this
  // after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '1GB',
  testTimeout: 30_000,
  testSequencer: '<rootDir>/test/support/sequencer.cjs',
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/apps/**/*.spec.ts', '<rootDir>/libs/**/*.spec.ts'],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
    },
  ],
};
