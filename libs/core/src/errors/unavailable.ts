import { type DependencyName, DependencyUnavailableError } from '../health/dependencies.js';

/** Socket errors of a connection that could not be made or was lost. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * SQLSTATEs that mean the server is not there for us: connection exceptions (class 08), the
 * server shutting down or starting up, no connection slot, the database not created yet.
 */
const POSTGRES_UNAVAILABLE = /^(08...|57P0[123]|53300|3D000)$/;

const POSTGRES_MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /Client has encountered a connection error/,
  /Client was closed and is not queryable/,
  /Cannot use a pool after calling end/,
];

const UNAVAILABLE = Symbol.for('platform.unavailable-dependency');

/** Marks `error` as saying that `dependency` is unreachable (for errors that cannot say it). */
export function tagUnavailable<E>(error: E, dependency: DependencyName): E {
  if (typeof error === 'object' && error !== null) {
    (error as Record<symbol, unknown>)[UNAVAILABLE] = dependency;
  }
  return error;
}

/** Tags `error` as `dependency`'s when it is a bare socket error (refused, reset, ...). */
export function tagSocketError<E>(error: E, dependency: DependencyName): E {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NETWORK_CODES.has(code)
    ? tagUnavailable(error, dependency)
    : error;
}

const REDIS_MESSAGES = [
  /^Connection is closed\.?$/,
  /^Stream isn't writeable/,
  /^Command timed out$/,
  /^Reached the max retries per request limit/,
  /^(LOADING|MASTERDOWN|READONLY) /,
];

/**
 * Which dependency an error says is unreachable, or null when it is some other failure. A bare
 * socket error (ECONNREFUSED, ...) names no service, so it counts only where it is known to be
 * the database's: inside TypeORM's wrapper (`driverError`) or tagged by whoever caught it.
 */
export function unavailableDependency(error: unknown): DependencyName | null {
  if (error instanceof DependencyUnavailableError) return error.dependency;
  if (typeof error !== 'object' || error === null) return null;
  const tagged = (error as Record<symbol, unknown>)[UNAVAILABLE];
  if (tagged === 'database' || tagged === 'redis') return tagged;
  const { name, message, code, driverError } = error as {
    name?: unknown;
    message?: unknown;
    code?: unknown;
    driverError?: unknown;
  };
  if (typeof driverError === 'object' && driverError !== null && driverError !== error) {
    const driverCode = (driverError as { code?: unknown }).code;
    if (typeof driverCode === 'string' && NETWORK_CODES.has(driverCode)) return 'database';
    const inner = unavailableDependency(driverError);
    if (inner) return inner;
  }
  const text = typeof message === 'string' ? message : '';
  if (name === 'MaxRetriesPerRequestError' || REDIS_MESSAGES.some((re) => re.test(text)))
    return 'redis';
  if (typeof code === 'string' && POSTGRES_UNAVAILABLE.test(code)) return 'database';
  if (POSTGRES_MESSAGES.some((re) => re.test(text))) return 'database';
  return null;
}
