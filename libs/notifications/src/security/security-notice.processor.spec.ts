import { describe, expect, it } from '@jest/globals';
import { JobName, type JobPayloads } from '@platform/queue';
import { securityEmail, securityPayload } from './security-notice.processor.js';

const job = (overrides: Partial<JobPayloads[JobName.SecurityNotice]> = {}) => ({
  noticeId: 'notice-1',
  event: 'password_changed' as const,
  accountId: 'account-1',
  organizationId: null,
  at: '2026-01-15T11:00:00.000Z',
  address: '203.0.113.7',
  userAgent: 'curl/8.9',
  link: 'https://cloud.example/accounts/me',
  details: {},
  ...overrides,
});

describe('securityEmail', () => {
  it('says what happened, when, from where, the facts, the page and what to do', () => {
    const { subject, text } = securityEmail(job({ details: { token_name: 'deploy' } }));
    expect(subject).toBe('Your password was changed');
    expect(text.split('\n')).toEqual([
      'The password of your account was changed; every other session was ended.',
      '',
      'When: 2026-01-15T11:00:00.000Z',
      'From: 203.0.113.7 (curl/8.9)',
      'token_name: deploy',
      '',
      'Review it here: https://cloud.example/accounts/me',
      '',
      'If this was not you, reset your password at once and revoke tokens you do not know.',
    ]);
  });

  it('sends the holder of a changed address to an administrator, since resets go elsewhere now', () => {
    const { subject, text } = securityEmail(
      job({
        event: 'email_changed',
        details: { previous_email: 'ada@old.example', email: 'ada@new.example' },
        emailTo: 'ada@old.example',
      }),
    );
    expect(subject).toBe('Your e-mail address was changed');
    expect(text).toContain('previous_email: ada@old.example\nemail: ada@new.example');
    expect(text).toMatch(
      /contact your platform administrator at once: password reset links now go to the new address\.$/,
    );
    expect(text).not.toContain('reset your password at once');
  });
});

describe('securityPayload', () => {
  it('holds the facts and the when and where, but not the address the e-mail went to', () => {
    expect(
      securityPayload(job({ event: 'email_changed', details: { email: 'b' }, emailTo: 'a' })),
    ).toEqual({
      email: 'b',
      event: 'email_changed',
      occurred_at: '2026-01-15T11:00:00.000Z',
      address: '203.0.113.7',
      user_agent: 'curl/8.9',
      link: 'https://cloud.example/accounts/me',
    });
  });
});
