import { describe, it } from '@jest/globals';
import { proveParallelIsolation } from './parallel-isolation.js';

describe('test harness (b)', () => {
  it(
    'runs alongside parallel-a on a database of its own',
    () => proveParallelIsolation('b'),
    60_000,
  );
});
