import { describe, it } from '@jest/globals';
import { proveParallelIsolation } from './parallel-isolation.js';

describe('test harness (a)', () => {
  it(
    'runs alongside parallel-b on a database of its own',
    () => proveParallelIsolation('a'),
    60_000,
  );
});
