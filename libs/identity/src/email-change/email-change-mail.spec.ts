import { describe, expect, it } from '@jest/globals';
import { emailChangeConfirmation } from './email-change-mail.js';

describe('emailChangeConfirmation', () => {
  const mail = emailChangeConfirmation({
    publicUrl: 'https://cloud.example',
    to: 'ada@new.example',
    name: 'Ada',
    token: 'a+b/c=',
  });

  it('goes to the new address with the link, its token escaped, and the token itself', () => {
    expect(mail.to).toBe('ada@new.example');
    expect(mail.subject).toBe('Confirm your new e-mail address');
    expect(mail.text).toContain(
      'https://cloud.example/accounts/me/email/verify?token=a%2Bb%2Fc%3D',
    );
    expect(mail.text).toContain('Confirmation token: a+b/c=');
  });

  it('says how long the link works and that nothing changes before it is opened', () => {
    expect(mail.text).toContain('valid for 24 hours and can be used once');
    expect(mail.text).toContain('your account keeps its current address');
  });
});
