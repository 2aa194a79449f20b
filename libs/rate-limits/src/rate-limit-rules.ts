/**
 * A limit on how often something may happen for one key (a client address, a login, an
 * organization, a phone number): at most `limit` times in any `windowSeconds` (a sliding
 * window, so a burst at a window's edge cannot double the rate).
 */
export interface RateLimitRule {
  /** Part of the Redis key and of the 429's details. */
  readonly name: string;
  readonly limit: number;
  readonly windowSeconds: number;
  /** What is limited, for the 429's message: "Too many {what}". */
  readonly what: string;
}

const HOUR = 3600;
const DAY = 24 * HOUR;

/**
 * Every limit of the platform in one table, chosen like the services users know: generous for
 * a person, tight for a script. Mail and texts that go to someone other than the caller (a
 * verification, a reset link, an invitation, a code) are limited per target, so nobody can
 * flood a mailbox or a phone through us, and per client address, so nobody can use us to
 * probe many targets. Login failures have their own throttle (LoginThrottle in identity) and
 * test alerts theirs (6 a minute, as the alerting spec says).
 */
export const RATE_LIMITS = {
  signupPerAddress: {
    name: 'signup:address',
    limit: 10,
    windowSeconds: HOUR,
    what: 'sign-ups from this address',
  },
  verificationMailPerLogin: {
    name: 'verification-mail:login',
    limit: 3,
    windowSeconds: HOUR,
    what: 'verification e-mails for this login',
  },
  verificationMailPerAddress: {
    name: 'verification-mail:address',
    limit: 10,
    windowSeconds: HOUR,
    what: 'verification e-mails requested from this address',
  },
  passwordResetPerLogin: {
    name: 'password-reset:login',
    limit: 3,
    windowSeconds: HOUR,
    what: 'password reset e-mails for this login',
  },
  passwordResetPerAddress: {
    name: 'password-reset:address',
    limit: 10,
    windowSeconds: HOUR,
    what: 'password resets requested from this address',
  },
  invitationsPerOrganization: {
    name: 'invitations:organization',
    limit: 50,
    windowSeconds: HOUR,
    what: 'invitations from this organization',
  },
  invitationsPerInvitee: {
    name: 'invitations:invitee',
    limit: 5,
    windowSeconds: DAY,
    what: 'invitations to this e-mail address',
  },
  emailChangesPerAccount: {
    name: 'email-changes:account',
    limit: 5,
    windowSeconds: HOUR,
    what: 'e-mail address changes requested for this account',
  },
  emailChangesPerAddress: {
    name: 'email-changes:address',
    limit: 3,
    windowSeconds: HOUR,
    what: 'confirmation e-mails to this address',
  },
  phoneCodesPerAccount: {
    name: 'phone-codes:account',
    limit: 5,
    windowSeconds: HOUR,
    what: 'verification codes for this account',
  },
  phoneCodesPerNumber: {
    name: 'phone-codes:number',
    limit: 5,
    windowSeconds: HOUR,
    what: 'verification codes to this phone number',
  },
  /**
   * Texts and calls to one number, whatever sent them (pages, notifications, codes): a
   * person paged by an alert storm, or a number targeted for toll fraud, gets at most this
   * many; the rest wait for the window instead of being dropped (the job is deferred).
   */
  textsAndCallsPerMinute: {
    name: 'phone-out:number:minute',
    limit: 10,
    windowSeconds: 60,
    what: 'texts and calls to this number',
  },
  textsAndCallsPerHour: {
    name: 'phone-out:number:hour',
    limit: 60,
    windowSeconds: HOUR,
    what: 'texts and calls to this number',
  },
  /**
   * Pings of one heartbeat monitor (its URL is public): a leaked URL cannot turn into a
   * flood of writes; a monitor pinging once a minute uses a sixtieth of it.
   */
  heartbeatPings: {
    name: 'heartbeat-pings:heartbeat',
    limit: 60,
    windowSeconds: 60,
    what: 'pings of this heartbeat',
  },
} as const satisfies Record<string, RateLimitRule>;
