import { describe, expect, it } from '@jest/globals';
import {
  bundleNotice,
  LISTED_IN_EMAIL,
  type NoticeAlert,
  resolvedNotice,
} from './bundle-notices.js';

const context = {
  organizationId: 'org-1',
  projectId: 'project-1',
  route: { id: 'route-1', name: 'Databases' },
  recipients: ['account-1'],
};

const alert = (n: number, extra: Partial<NoticeAlert> = {}): NoticeAlert => ({
  id: `alert-${n}`,
  fingerprint: `fp-${n}`,
  severity: 'high',
  labels: { alertname: `Alert${n}` },
  annotations: { summary: `number ${n}` },
  ...extra,
});

describe('bundleNotice', () => {
  it('tells how many more alerts fired on the route and lists them', () => {
    const notice = bundleNotice(context, { id: 'b-1', kind: 'firing', leadAlertId: 'alert-0' }, [
      alert(1),
      alert(2, { labels: {}, annotations: {} }),
    ]);
    expect(notice).toMatchObject({
      category: 'alert_escalation',
      eventType: 'alert_bundle',
      organizationId: 'org-1',
      recipients: ['account-1'],
      shortText: '2 more alerts on route Databases',
      idempotencyKey: 'alert-bundle/b-1',
      payload: {
        bundle_id: 'b-1',
        project_id: 'project-1',
        route_id: 'route-1',
        lead_alert_id: 'alert-0',
        count: 2,
        alerts: [
          {
            alert_id: 'alert-1',
            fingerprint: 'fp-1',
            alertname: 'Alert1',
            severity: 'high',
            summary: 'number 1',
          },
          { alert_id: 'alert-2', fingerprint: 'fp-2', alertname: null, summary: null },
        ],
      },
    });
    expect(notice.email).toEqual({
      subject: '2 more alerts on route Databases',
      text: [
        '2 more alerts on route Databases',
        '',
        '- [HIGH] Alert1: number 1 (fp-1)',
        '- [HIGH] fp-2 (fp-2)',
      ].join('\n'),
    });
  });

  it('says "alert" for one, names resolutions, and falls back to the route id', () => {
    const notice = bundleNotice(
      { ...context, route: { id: 'route-1', name: '' } },
      { id: 'b-2', kind: 'resolved', leadAlertId: 'alert-0' },
      [alert(1)],
    );
    expect(notice.eventType).toBe('alert_bundle_resolved');
    expect(notice.email!.subject).toBe('1 alert resolved on route route-1');
  });

  it(`lists at most ${LISTED_IN_EMAIL} alerts in the e-mail, and all of them in-app`, () => {
    const alerts = Array.from({ length: LISTED_IN_EMAIL + 5 }, (_, i) => alert(i));
    const notice = bundleNotice(context, { id: 'b-3', kind: 'firing', leadAlertId: 'x' }, alerts);
    const lines = notice.email!.text.split('\n');
    expect(lines).toHaveLength(2 + LISTED_IN_EMAIL + 1);
    expect(lines.at(-1)).toBe('... and 5 more');
    expect(notice.payload!.alerts).toHaveLength(LISTED_IN_EMAIL + 5);
  });
});

describe('resolvedNotice', () => {
  it('tells of the one resolution, keyed by the bundle it opens', () => {
    expect(resolvedNotice(context, alert(7), 'b-4')).toMatchObject({
      eventType: 'alert_resolved',
      shortText: '[RESOLVED] Alert7',
      idempotencyKey: 'alert-resolved/b-4',
      payload: { alert_id: 'alert-7', route_id: 'route-1', project_id: 'project-1' },
      email: {
        subject: '[RESOLVED] Alert7',
        text: '[RESOLVED] Alert7\n\nRoute: Databases\n- [HIGH] Alert7: number 7 (fp-7)',
      },
    });
  });
});
