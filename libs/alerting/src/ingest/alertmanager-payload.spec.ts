import { describe, expect, it } from '@jest/globals';
import {
  IngestAlertErrorCode,
  parseAlert,
  parseAlerts,
  parseRfc3339,
  payloadAlerts,
  payloadStatus,
} from './alertmanager-payload.js';

const alert = (overrides: Record<string, unknown> = {}) => ({
  status: 'firing',
  labels: { alertname: 'HighLatency', severity: 'critical' },
  annotations: { summary: 'p99 above 1s' },
  startsAt: '2026-03-10T06:30:00.123456789Z',
  endsAt: '0001-01-01T00:00:00Z',
  generatorURL: 'http://prometheus/graph',
  fingerprint: 'a1b2c3',
  ...overrides,
});

describe('Alertmanager payload', () => {
  it('needs a non-empty alerts array', () => {
    for (const body of [
      undefined,
      null,
      'x',
      [],
      {},
      { alerts: [] },
      { alerts: {} },
      { alerts: 'a' },
    ]) {
      expect(payloadAlerts(body)).toBeNull();
    }
    expect(payloadAlerts({ alerts: [1] })).toEqual([1]);
  });

  it('takes the payload status as the fallback of an alert without one', () => {
    expect(payloadStatus({ status: 'resolved' })).toBe('resolved');
    expect(payloadStatus({ status: 'weird' })).toBeUndefined();
    expect(parseAlert(alert({ status: undefined }), 0, 'resolved')).toMatchObject({
      status: 'resolved',
    });
  });

  it('normalizes a valid alert; the zero endsAt and any endsAt of a firing alert are null', () => {
    expect(parseAlert(alert(), 0)).toEqual({
      fingerprint: 'a1b2c3',
      status: 'firing',
      severity: 'critical',
      labels: { alertname: 'HighLatency', severity: 'critical' },
      annotations: { summary: 'p99 above 1s' },
      startsAt: '2026-03-10T06:30:00.123456789Z',
      endsAt: null,
      generatorUrl: 'http://prometheus/graph',
    });
    expect(parseAlert(alert({ endsAt: '2026-03-10T07:00:00Z' }), 0)).toMatchObject({
      endsAt: null,
    });
    expect(
      parseAlert(alert({ status: 'resolved', endsAt: '2026-03-10T08:00:00+01:00' }), 0),
    ).toMatchObject({ endsAt: '2026-03-10T08:00:00+01:00' });
    expect(
      parseAlert(alert({ status: 'resolved', endsAt: '0001-01-01T00:00:00Z' }), 0),
    ).toMatchObject({ endsAt: null });
    expect(parseAlert(alert({ startsAt: undefined, annotations: undefined }), 0)).toMatchObject({
      startsAt: null,
      annotations: {},
    });
  });

  it.each<[string, unknown, IngestAlertErrorCode]>([
    ['not an object', 'alert', IngestAlertErrorCode.InvalidAlert],
    ['an array', [], IngestAlertErrorCode.InvalidAlert],
    ['no fingerprint', alert({ fingerprint: undefined }), IngestAlertErrorCode.MissingFingerprint],
    ['empty fingerprint', alert({ fingerprint: '' }), IngestAlertErrorCode.MissingFingerprint],
    ['numeric fingerprint', alert({ fingerprint: 7 }), IngestAlertErrorCode.InvalidFingerprint],
    [
      'long fingerprint',
      alert({ fingerprint: 'f'.repeat(513) }),
      IngestAlertErrorCode.InvalidFingerprint,
    ],
    ['bad status', alert({ status: 'pending' }), IngestAlertErrorCode.InvalidStatus],
    ['labels not a map', alert({ labels: ['severity'] }), IngestAlertErrorCode.InvalidLabels],
    [
      'a numeric label',
      alert({ labels: { severity: 'info', n: 1 } }),
      IngestAlertErrorCode.InvalidLabels,
    ],
    ['no labels', alert({ labels: undefined }), IngestAlertErrorCode.MissingSeverity],
    ['no severity', alert({ labels: { alertname: 'x' } }), IngestAlertErrorCode.MissingSeverity],
    [
      'unknown severity',
      alert({ labels: { severity: 'page' } }),
      IngestAlertErrorCode.UnknownSeverity,
    ],
    [
      'severity in capitals',
      alert({ labels: { severity: 'Critical' } }),
      IngestAlertErrorCode.UnknownSeverity,
    ],
    ['annotations not a map', alert({ annotations: 'x' }), IngestAlertErrorCode.InvalidAnnotations],
    ['startsAt not a date', alert({ startsAt: 'yesterday' }), IngestAlertErrorCode.InvalidStartsAt],
    ['startsAt a number', alert({ startsAt: 1700000000 }), IngestAlertErrorCode.InvalidStartsAt],
    [
      'startsAt Feb 30',
      alert({ startsAt: '2026-02-30T00:00:00Z' }),
      IngestAlertErrorCode.InvalidStartsAt,
    ],
    [
      'endsAt not a date',
      alert({ endsAt: '2026-13-01T00:00:00Z' }),
      IngestAlertErrorCode.InvalidEndsAt,
    ],
    [
      'generatorURL not a string',
      alert({ generatorURL: 3 }),
      IngestAlertErrorCode.InvalidGeneratorUrl,
    ],
  ])('refuses an alert with %s', (_name, raw, code) => {
    expect(parseAlert(raw, 4)).toMatchObject({ index: 4, code });
  });

  it('names the fingerprint of a refused alert when it has one', () => {
    expect(parseAlert(alert({ labels: {} }), 2)).toEqual({
      index: 2,
      fingerprint: 'a1b2c3',
      code: IngestAlertErrorCode.MissingSeverity,
      message: 'labels have no severity',
    });
    expect(parseAlert(alert({ fingerprint: undefined }), 0)).not.toHaveProperty('fingerprint');
  });

  it('treats every spelling of the zero time as null', () => {
    for (const zero of [
      '0001-01-01T00:00:00Z',
      '0001-01-01T00:00:00.000Z',
      '0001-01-01 00:00:00+00:00',
    ]) {
      expect(parseAlert(alert({ status: 'resolved', endsAt: zero }), 0)).toMatchObject({
        endsAt: null,
      });
    }
  });

  it('parses RFC 3339 strictly', () => {
    expect(parseRfc3339('0001-01-01T00:00:00Z')).toBe(new Date('0001-01-01T00:00:00Z').getTime());
    expect(parseRfc3339('0099-03-01T12:00:00Z')).toBe(new Date('0099-03-01T12:00:00Z').getTime());
    expect(parseRfc3339('2026-03-10T06:30:00.123456789+02:00')).toBe(
      Date.UTC(2026, 2, 10, 4, 30, 0, 123),
    );
    expect(parseRfc3339('9999-12-31T23:59:59.999Z')).toBe(
      new Date('9999-12-31T23:59:59.999Z').getTime(),
    );
    for (const outside of ['0000-12-31T23:59:59Z', '0001-01-01T00:00:00+00:01']) {
      expect(parseRfc3339(outside)).toBeNaN();
    }
    expect(parseRfc3339('2024-02-29T23:59:59Z')).toBe(Date.UTC(2024, 1, 29, 23, 59, 59));
    expect(parseRfc3339('2024-01-01T00:00:00.5-02:00')).toBe(Date.UTC(2024, 0, 1, 2, 0, 0, 500));
    for (const bad of [
      '2024',
      '2023-02-29T00:00:00Z',
      '2024-01-01T24:00:00Z',
      '2024-01-01T00:00:00',
    ]) {
      expect(parseRfc3339(bad)).toBeNaN();
    }
  });

  it('keeps the last of alerts sharing a fingerprint and counts every valid one', () => {
    const parsed = parseAlerts([
      alert({ labels: { severity: 'info' } }),
      alert({ fingerprint: 'other' }),
      { bad: true },
      alert({ labels: { severity: 'warning' } }),
    ]);
    expect(parsed.accepted).toBe(3);
    expect(parsed.valid.map((a) => [a.fingerprint, a.severity])).toEqual([
      ['other', 'critical'],
      ['a1b2c3', 'warning'],
    ]);
    expect(parsed.errors).toEqual([
      {
        index: 2,
        code: IngestAlertErrorCode.MissingFingerprint,
        message: 'alert has no fingerprint',
      },
    ]);
  });
});
