import type { Severity } from '../severity.js';
import { resolveSeverity, type SeverityMapping } from './severity-mapping.js';

/** Why one alert of a payload was not processed; the others still are. */
export enum IngestAlertErrorCode {
  InvalidAlert = 'invalid_alert',
  MissingFingerprint = 'missing_fingerprint',
  InvalidFingerprint = 'invalid_fingerprint',
  InvalidStatus = 'invalid_status',
  InvalidLabels = 'invalid_labels',
  MissingSeverity = 'missing_severity',
  UnknownSeverity = 'unknown_severity',
  InvalidAnnotations = 'invalid_annotations',
  InvalidStartsAt = 'invalid_starts_at',
  InvalidEndsAt = 'invalid_ends_at',
  InvalidGeneratorUrl = 'invalid_generator_url',
}

/** An entry of `data.errors`: the alert's index in `alerts`, and its fingerprint when it had one. */
export interface IngestAlertError {
  index: number;
  fingerprint?: string;
  code: IngestAlertErrorCode;
  message: string;
}

export type AlertStatus = 'firing' | 'resolved';

/** One valid alert, normalized for the upsert. */
export interface IngestAlert {
  fingerprint: string;
  status: AlertStatus;
  severity: Severity;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** RFC 3339 as received; null: absent (the receipt time is used) or the zero value. */
  startsAt: string | null;
  /** RFC 3339 as received; null: absent, the zero value, or the alert is firing. */
  endsAt: string | null;
  generatorUrl: string;
}

export const MAX_FINGERPRINT_LENGTH = 512;
export const MAX_GENERATOR_URL_LENGTH = 4096;

/** Go's zero time, which Alertmanager sends as `endsAt` of an alert that has not ended. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';
const ZERO_TIME_MS = -62135596800000;
const MAX_TIME_MS = 253402300799999;
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const MS_PER_DAY = 86_400_000;

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (valid for every year, unlike Date.UTC). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

/**
 * An RFC 3339 date-time (what Alertmanager sends, fractions to nanoseconds) as milliseconds
 * since the epoch; NaN when it is not one or lies outside years 1 to 9999. Stricter than
 * Date.parse, which takes "2024" or rolls Feb 30 over into March.
 */
export function parseRfc3339(value: string): number {
  const match = RFC3339.exec(value);
  if (!match) return NaN;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const hour = Number(match[4]);
  const minute = Number(match[5]);
  const second = Number(match[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return NaN;
  if (hour > 23 || minute > 59 || second > 59) return NaN;
  let offsetMinutes = 0;
  if (match[8] !== undefined) {
    const offsetHour = Number(match[9]);
    const offsetMinute = Number(match[10]);
    if (offsetHour > 23 || offsetMinute > 59) return NaN;
    offsetMinutes = (match[8] === '-' ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  }
  const fraction = match[7] === undefined ? 0 : Math.floor(Number(match[7]) * 1000);
  const ms =
    daysFromCivil(year, month, day) * MS_PER_DAY +
    ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 +
    fraction;
  return ms >= ZERO_TIME_MS && ms <= MAX_TIME_MS ? ms : NaN;
}

/**
 * A date-time field: null when absent or the zero value, the string itself when valid (the
 * database parses it, keeping sub-millisecond precision), undefined when invalid.
 */
function dateField(value: unknown): string | null | undefined {
  if (value === undefined || value === null || value === '' || value === ZERO_TIME) return null;
  if (typeof value !== 'string') return undefined;
  const ms = parseRfc3339(value);
  if (Number.isNaN(ms)) return undefined;
  return ms === ZERO_TIME_MS ? null : value;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function isStringMap(value: Record<string, unknown>): value is Record<string, string> {
  for (const key in value) if (typeof value[key] !== 'string') return false;
  return true;
}

/**
 * The alerts of a webhook body, or null when the body lacks a non-empty `alerts` array (the
 * payload-level `malformed_payload`). Other top-level fields (version, groupKey, receiver,
 * common labels) are not required: each alert carries all that is stored.
 */
export function payloadAlerts(body: unknown): unknown[] | null {
  if (!isObject(body)) return null;
  const alerts = body.alerts;
  return Array.isArray(alerts) && alerts.length > 0 ? alerts : null;
}

/** The payload's own status, the fallback of an alert without one. */
export function payloadStatus(body: unknown): AlertStatus | undefined {
  const status = isObject(body) ? body.status : undefined;
  return status === 'firing' || status === 'resolved' ? status : undefined;
}

/**
 * Validates and normalizes one alert, or says (with the first problem found) why it cannot be
 * processed. Firing alerts store no `ends_at`: Alertmanager may send a provisional future
 * `endsAt` while an alert fires, and the spec keeps ends_at null until resolution. The
 * severity label goes through the ingest token's mapping when it has one; the labels are
 * stored as sent.
 */
export function parseAlert(
  raw: unknown,
  index: number,
  fallbackStatus: AlertStatus = 'firing',
  mapping: SeverityMapping | null = null,
): IngestAlert | IngestAlertError {
  if (!isObject(raw)) {
    return { index, code: IngestAlertErrorCode.InvalidAlert, message: 'alert must be an object' };
  }
  const fingerprint = raw.fingerprint;
  if (fingerprint === undefined || fingerprint === null || fingerprint === '') {
    return {
      index,
      code: IngestAlertErrorCode.MissingFingerprint,
      message: 'alert has no fingerprint',
    };
  }
  if (typeof fingerprint !== 'string' || fingerprint.trim() === '') {
    return {
      index,
      code: IngestAlertErrorCode.InvalidFingerprint,
      message: 'fingerprint must be a non-blank string',
    };
  }
  if (fingerprint.length > MAX_FINGERPRINT_LENGTH) {
    return {
      index,
      code: IngestAlertErrorCode.InvalidFingerprint,
      message: `fingerprint must be at most ${MAX_FINGERPRINT_LENGTH} characters`,
    };
  }
  const problem = (code: IngestAlertErrorCode, message: string): IngestAlertError => ({
    index,
    fingerprint,
    code,
    message,
  });

  const status = raw.status ?? fallbackStatus;
  if (status !== 'firing' && status !== 'resolved') {
    return problem(IngestAlertErrorCode.InvalidStatus, 'status must be firing or resolved');
  }
  const labels = raw.labels;
  if (labels !== undefined && labels !== null && (!isObject(labels) || !isStringMap(labels))) {
    return problem(IngestAlertErrorCode.InvalidLabels, 'labels must map names to strings');
  }
  const severity = resolveSeverity(labels?.severity, mapping);
  if (severity === 'missing') {
    return problem(IngestAlertErrorCode.MissingSeverity, 'labels have no severity');
  }
  if (severity === 'unknown') {
    return problem(
      IngestAlertErrorCode.UnknownSeverity,
      `severity "${String(labels?.severity)}" is not one of critical, high, warning, info` +
        (mapping ? " nor a key of the ingest token's severity_map" : ''),
    );
  }
  const annotations = raw.annotations ?? {};
  if (!isObject(annotations) || !isStringMap(annotations)) {
    return problem(
      IngestAlertErrorCode.InvalidAnnotations,
      'annotations must map names to strings',
    );
  }
  const startsAt = dateField(raw.startsAt);
  if (startsAt === undefined) {
    return problem(IngestAlertErrorCode.InvalidStartsAt, 'startsAt is not an RFC 3339 date-time');
  }
  const endsAt = dateField(raw.endsAt);
  if (endsAt === undefined) {
    return problem(IngestAlertErrorCode.InvalidEndsAt, 'endsAt is not an RFC 3339 date-time');
  }
  const generatorUrl = raw.generatorURL ?? '';
  if (typeof generatorUrl !== 'string' || generatorUrl.length > MAX_GENERATOR_URL_LENGTH) {
    return problem(
      IngestAlertErrorCode.InvalidGeneratorUrl,
      `generatorURL must be a string of at most ${MAX_GENERATOR_URL_LENGTH} characters`,
    );
  }
  return {
    fingerprint,
    status,
    severity,
    labels: labels ?? {},
    annotations,
    startsAt,
    endsAt: status === 'resolved' ? endsAt : null,
    generatorUrl,
  };
}

export const isAlertError = (parsed: IngestAlert | IngestAlertError): parsed is IngestAlertError =>
  'code' in parsed;

/**
 * Every alert of the payload, split into valid ones (deduplicated by fingerprint: a later
 * alert replaces an earlier one with the same fingerprint, as a later delivery would) and
 * the errors of the others.
 */
export function parseAlerts(
  alerts: readonly unknown[],
  fallbackStatus?: AlertStatus,
  mapping: SeverityMapping | null = null,
): { valid: IngestAlert[]; errors: IngestAlertError[]; accepted: number } {
  const byFingerprint = new Map<string, IngestAlert>();
  const errors: IngestAlertError[] = [];
  let accepted = 0;
  for (let index = 0; index < alerts.length; index += 1) {
    const parsed = parseAlert(alerts[index], index, fallbackStatus, mapping);
    if (isAlertError(parsed)) {
      errors.push(parsed);
    } else {
      accepted += 1;
      byFingerprint.delete(parsed.fingerprint);
      byFingerprint.set(parsed.fingerprint, parsed);
    }
  }
  return { valid: [...byFingerprint.values()], errors, accepted };
}
