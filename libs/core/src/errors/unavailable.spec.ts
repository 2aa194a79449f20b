import { describe, expect, it } from '@jest/globals';
import { DependencyUnavailableError } from '../health/dependencies.js';
import { tagSocketError, tagUnavailable, unavailableDependency } from './unavailable.js';

function errorWith(fields: Record<string, unknown>, message = 'failed'): Error {
  return Object.assign(new Error(message), fields);
}

describe('unavailableDependency', () => {
  it('reads PostgreSQL outages from SQLSTATEs, pg messages and TypeORM wrappers', () => {
    for (const code of ['57P01', '57P03', '08006', '08001', '53300', '3D000']) {
      expect(unavailableDependency(errorWith({ code }))).toBe('database');
    }
    expect(unavailableDependency(new Error('Connection terminated unexpectedly'))).toBe('database');
    expect(unavailableDependency(new Error('timeout exceeded when trying to connect'))).toBe(
      'database',
    );
    const refused = errorWith({ code: 'ECONNREFUSED' }, 'connect ECONNREFUSED');
    expect(unavailableDependency(errorWith({ driverError: refused }))).toBe('database');
    expect(unavailableDependency(errorWith({ driverError: errorWith({ code: '57P01' }) }))).toBe(
      'database',
    );
  });

  it('reads Redis outages from ioredis and BullMQ errors', () => {
    const maxRetries = errorWith({ name: 'MaxRetriesPerRequestError' }, 'Reached the max');
    maxRetries.name = 'MaxRetriesPerRequestError';
    expect(unavailableDependency(maxRetries)).toBe('redis');
    for (const message of [
      'Connection is closed.',
      "Stream isn't writeable and enableOfflineQueue options is false",
      'Command timed out',
      'LOADING Redis is loading the dataset in memory',
    ]) {
      expect(unavailableDependency(new Error(message))).toBe('redis');
    }
    expect(unavailableDependency(new DependencyUnavailableError('redis'))).toBe('redis');
  });

  it('does not take a bare socket error, a query error or anything else for an outage', () => {
    // An outbound call refused by someone else's server says nothing about our database.
    expect(unavailableDependency(errorWith({ code: 'ECONNREFUSED' }))).toBeNull();
    expect(unavailableDependency(errorWith({ code: '23505' }, 'duplicate key'))).toBeNull();
    expect(
      unavailableDependency(errorWith({ driverError: errorWith({ code: '42P01' }) })),
    ).toBeNull();
    expect(unavailableDependency(new TypeError('x is undefined'))).toBeNull();
    expect(unavailableDependency('Connection is closed.')).toBeNull();
    expect(unavailableDependency(null)).toBeNull();
  });

  it('believes a tag, and tags socket errors only', () => {
    expect(unavailableDependency(tagUnavailable(new Error('anything'), 'redis'))).toBe('redis');
    expect(unavailableDependency(tagSocketError(errorWith({ code: 'ECONNRESET' }), 'redis'))).toBe(
      'redis',
    );
    expect(unavailableDependency(tagSocketError(errorWith({ code: '23505' }), 'redis'))).toBeNull();
  });
});
