import type { EmailMessage } from '@platform/mail';

/** How long the confirmation link of an e-mail address change works. */
export const EMAIL_CHANGE_TTL_HOURS = 24;

/** The path of the confirmation link (a page when opened in a signed-in browser). */
export const EMAIL_CHANGE_LINK_PATH = '/accounts/me/email/verify';

/**
 * The e-mail to the new address: the link to open while signed in, and the token for API
 * clients (`POST /accounts/me/email/verify`). Pure.
 */
export function emailChangeConfirmation(input: {
  publicUrl: string;
  to: string;
  name: string;
  token: string;
}): EmailMessage {
  const link = `${input.publicUrl}${EMAIL_CHANGE_LINK_PATH}?token=${encodeURIComponent(input.token)}`;
  return {
    to: input.to,
    subject: 'Confirm your new e-mail address',
    text: [
      `Hello ${input.name},`,
      '',
      'you asked to make this address the e-mail address and login of your account.',
      'Confirm it by opening this link while you are signed in:',
      link,
      '',
      `Confirmation token: ${input.token}`,
      '',
      `The link is valid for ${EMAIL_CHANGE_TTL_HOURS} hours and can be used once. Until it is`,
      'opened, your account keeps its current address. If you did not ask for this, ignore this',
      'e-mail.',
    ].join('\n'),
  };
}
