import { describe, expect, it } from '@jest/globals';
import { parseAlert } from '../ingest/alertmanager-payload.js';
import { heartbeatAlert, heartbeatFingerprint } from './heartbeat-alerts.js';

const heartbeat = {
  id: '6f1c1a3e-2b7d-4c59-9a51-0d1e2f3a4b5c',
  name: 'watchdog',
  labels: { team: 'sre' } as Record<string, string>,
  interval_seconds: 300,
  grace_seconds: 60,
  due_at: new Date('2026-05-04T10:06:00Z'),
};
const at = new Date('2026-05-04T10:06:05Z');

describe('heartbeat alerts', () => {
  it('fires with alertname the name, severity critical by default, starting at the deadline', () => {
    expect(heartbeatAlert(heartbeat, 'firing', at)).toEqual({
      fingerprint: heartbeatFingerprint(heartbeat.id),
      status: 'firing',
      labels: { team: 'sre', alertname: 'watchdog', severity: 'critical' },
      annotations: { summary: 'Heartbeat "watchdog" missed: no ping for 360 seconds' },
      startsAt: '2026-05-04T10:06:00.000Z',
    });
  });

  it('keeps a severity label that is one of the four, and replaces any other', () => {
    const high = { ...heartbeat, labels: { severity: 'high' } };
    expect(heartbeatAlert(high, 'firing', at).labels).toEqual({
      severity: 'high',
      alertname: 'watchdog',
    });
    const odd = { ...heartbeat, labels: { severity: 'Page', alertname: 'other' } };
    expect(heartbeatAlert(odd, 'firing', at).labels).toEqual({
      severity: 'critical',
      alertname: 'watchdog',
    });
  });

  it('resolves ending at the ping, and what it builds passes ingest parsing', () => {
    const resolved = heartbeatAlert(heartbeat, 'resolved', at);
    expect(resolved).toMatchObject({ status: 'resolved', endsAt: '2026-05-04T10:06:05.000Z' });
    expect(parseAlert(resolved, 0)).toMatchObject({
      fingerprint: `heartbeat-${heartbeat.id}`,
      status: 'resolved',
      severity: 'critical',
      endsAt: '2026-05-04T10:06:05.000Z',
    });
    expect(parseAlert(heartbeatAlert(heartbeat, 'firing', at), 0)).toMatchObject({
      status: 'firing',
      startsAt: '2026-05-04T10:06:00.000Z',
    });
  });
});
