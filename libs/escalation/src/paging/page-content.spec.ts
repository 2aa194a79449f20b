import { describe, expect, it } from '@jest/globals';
import { duration, type PagedAlert, pageEmail, pageSms, pageTwiml } from './page-content.js';

const ALERT: PagedAlert = {
  alertId: '11111111-1111-4111-8111-111111111111',
  projectName: 'production',
  severity: 'critical',
  fingerprint: 'fp-1',
  alertname: 'DiskFull',
  summary: 'Disk /var is 97% full & rising',
};

describe('page content', () => {
  it('says how long a link lasts in the largest whole unit', () => {
    expect(duration(86_400)).toBe('24 hours');
    expect(duration(3600)).toBe('1 hour');
    expect(duration(5400)).toBe('90 minutes');
    expect(duration(61)).toBe('61 seconds');
  });

  it('puts severity, name and summary in the subject and the link in both bodies', () => {
    const mail = pageEmail(ALERT, 'https://x.example/alerts/ack/t.s', 86_400);
    expect(mail.subject).toBe('[CRITICAL] DiskFull: Disk /var is 97% full & rising');
    expect(mail.text).toContain(
      'Acknowledge it (this stops the escalation): https://x.example/alerts/ack/t.s',
    );
    expect(mail.text).toContain('The link is valid for 24 hours.');
    expect(mail.html).toContain('href="https://x.example/alerts/ack/t.s"');
    expect(mail.html).toContain('97% full &amp; rising');
  });

  it('falls back to the fingerprint when the alert has no name', () => {
    const mail = pageEmail({ ...ALERT, alertname: null, summary: null }, 'u', 3600);
    expect(mail.subject).toBe('[CRITICAL] fp-1');
  });

  it('gathers one digit posted to the action, with the alert read out and escaped', () => {
    const twiml = pageTwiml(ALERT, 'https://x.example/alerts/phone_ack/a.b?x=1&y=2');
    expect(twiml).toMatch(
      /^<Response><Gather numDigits="1" action="https:\/\/x\.example\/alerts\/phone_ack\/a\.b\?x=1&amp;y=2" method="POST"><Say>[^<]*DiskFull[^<]*&amp; rising\. Press 1 to acknowledge\.<\/Say><\/Gather><Say>No input received\.<\/Say><\/Response>$/,
    );
  });

  it('ends an SMS with its reply code', () => {
    expect(pageSms(ALERT, '123456')).toBe(
      '[CRITICAL] DiskFull firing in production: Disk /var is 97% full & rising. Reply 123456 to acknowledge.',
    );
    expect(pageSms({ ...ALERT, summary: 'x'.repeat(500) }, '1').length).toBeLessThan(300);
  });
});
