import { describe, expect, it } from '@jest/globals';
import { IngestAlertErrorCode, parseAlert } from './alertmanager-payload.js';
import {
  MAX_SEVERITY_MAP_ENTRIES,
  MAX_SEVERITY_MAP_KEY_LENGTH,
  resolveSeverity,
  severityMappingOf,
  severityMapProblems,
} from './severity-mapping.js';

describe('severity mapping', () => {
  const mapping = severityMappingOf({ Error: 'high', PAGE: 'critical' }, null);
  const defaultOnly = severityMappingOf({}, 'warning');

  it('stores keys lower-cased, and is null when the body asks for nothing', () => {
    expect(mapping).toEqual({ map: { error: 'high', page: 'critical' }, defaultSeverity: null });
    expect(severityMappingOf(undefined, undefined)).toBeNull();
    expect(severityMappingOf(null, null)).toBeNull();
    expect(severityMappingOf({}, null)).toBeNull();
    expect(defaultOnly).toEqual({ map: {}, defaultSeverity: 'warning' });
  });

  it('without a mapping, takes only the four exact severities', () => {
    expect(resolveSeverity('critical', null)).toBe('critical');
    expect(resolveSeverity('Critical', null)).toBe('unknown');
    expect(resolveSeverity('error', null)).toBe('unknown');
    expect(resolveSeverity(undefined, null)).toBe('missing');
    expect(resolveSeverity('', null)).toBe('missing');
  });

  it('matches map keys case-insensitively, and with entries the four severities too', () => {
    expect(resolveSeverity('error', mapping)).toBe('high');
    expect(resolveSeverity('ERROR', mapping)).toBe('high');
    expect(resolveSeverity('Page', mapping)).toBe('critical');
    expect(resolveSeverity('Critical', mapping)).toBe('critical');
    expect(resolveSeverity('INFO', mapping)).toBe('info');
    expect(resolveSeverity('warning', mapping)).toBe('warning');
    expect(resolveSeverity('fatal', mapping)).toBe('unknown');
    expect(resolveSeverity(undefined, mapping)).toBe('missing');
  });

  it('lets a key remap one of the four severities', () => {
    const remapped = severityMappingOf({ critical: 'high' }, null);
    expect(resolveSeverity('critical', remapped)).toBe('critical');
    expect(resolveSeverity('Critical', remapped)).toBe('high');
  });

  it('gives alerts without a severity label the default; exact severities still pass', () => {
    expect(resolveSeverity(undefined, defaultOnly)).toBe('warning');
    expect(resolveSeverity('', defaultOnly)).toBe('warning');
    expect(resolveSeverity('high', defaultOnly)).toBe('high');
    // No map entries: the four severities keep matching exactly.
    expect(resolveSeverity('High', defaultOnly)).toBe('unknown');
  });

  it('accepts a map of up to 50 entries with keys up to 64 characters', () => {
    const full = Object.fromEntries(
      Array.from({ length: MAX_SEVERITY_MAP_ENTRIES }, (_, i) => [`level-${i}`, 'info']),
    );
    expect(severityMapProblems(full)).toEqual([]);
    expect(severityMapProblems({ ['k'.repeat(MAX_SEVERITY_MAP_KEY_LENGTH)]: 'high' })).toEqual([]);
    expect(severityMapProblems({})).toEqual([]);
  });

  it('names each problem of an invalid map', () => {
    expect(severityMapProblems({ error: 'urgent' })).toEqual([
      'severity_map.error must be one of critical, high, warning, info',
    ]);
    expect(severityMapProblems({ error: 3 })).toEqual([
      'severity_map.error must be one of critical, high, warning, info',
    ]);
    expect(severityMapProblems({ '': 'high' })).toEqual(['severity_map keys must not be empty']);
    expect(severityMapProblems({ '  ': 'high' })).toEqual(['severity_map keys must not be empty']);
    expect(severityMapProblems({ ['k'.repeat(65)]: 'high' })).toEqual([
      'severity_map key "kkkkkkkkkkkkkkkk…" is longer than 64 characters',
    ]);
    expect(severityMapProblems({ Error: 'high', error: 'info' })).toEqual([
      'severity_map keys "error" and another differ only in case',
    ]);
    const tooMany = Object.fromEntries(
      Array.from({ length: MAX_SEVERITY_MAP_ENTRIES + 1 }, (_, i) => [`level-${i}`, 'info']),
    );
    expect(severityMapProblems(tooMany)).toEqual(['severity_map must have at most 50 entries']);
    for (const value of [null, 'x', ['error'], 7]) {
      expect(severityMapProblems(value)).toEqual([
        'severity_map must be an object of label values to severities',
      ]);
    }
  });

  it('applies to parsed alerts, whose labels stay as sent', () => {
    const raw = {
      fingerprint: 'fp',
      labels: { alertname: 'Disk', severity: 'Error' },
    };
    expect(parseAlert(raw, 0, 'firing', mapping)).toMatchObject({
      severity: 'high',
      labels: { alertname: 'Disk', severity: 'Error' },
    });
    expect(parseAlert({ fingerprint: 'fp' }, 0, 'firing', defaultOnly)).toMatchObject({
      severity: 'warning',
      labels: {},
    });
    expect(parseAlert({ ...raw, labels: { severity: 'fatal' } }, 3, 'firing', mapping)).toEqual({
      index: 3,
      fingerprint: 'fp',
      code: IngestAlertErrorCode.UnknownSeverity,
      message:
        'severity "fatal" is not one of critical, high, warning, info nor a key of the ingest token\'s severity_map',
    });
    expect(parseAlert({ fingerprint: 'fp' }, 0, 'firing', mapping)).toMatchObject({
      code: IngestAlertErrorCode.MissingSeverity,
    });
  });
});
