import { describe, expect, it } from '@jest/globals';
import type { Channel } from '../delivery/decide.js';
import type { NotificationCategory, NotificationSchedule } from '../entities.js';
import { NotificationsErrorCode, NotificationsException } from '../notifications-exception.js';
import {
  type ChannelPreferences,
  type NotifyData,
  planNotifications,
  recipientGroups,
  requestCategories,
} from './notify-plan.js';
import type { NotifyRequest } from './notify.service.js';
import type { RecipientRow } from './recipients.repository.js';

const at = (iso: string): Date => new Date(iso);
// Europe/Berlin in January is UTC+1.
const DAY = at('2026-01-15T11:00:00Z'); // 12:00 local
const NIGHT = at('2026-01-15T23:00:00Z'); // 00:00 local

function category(
  key: string,
  label: string,
  defaultChannels: Channel[] = ['in_app', 'email'],
): NotificationCategory {
  return {
    id: `category-${key}`,
    key,
    label,
    defaultChannels,
    mandatoryForAdmins: true,
    severity: 'info',
    featureKey: null,
    superadminOnly: false,
    position: 1,
  };
}

const BILLING = category('billing', 'Billing');
const ESCALATION = category('alert_escalation', 'Alert escalation');
const FEATURES = category('feature_request', 'Feature requests', ['in_app']);
const CATALOGUE = new Map([BILLING, ESCALATION, FEATURES].map((c) => [c.key, c]));

const ORG = 'org-1';
const OTHER_ORG = 'org-2';

function account(id: string, extra: Partial<RecipientRow> = {}): RecipientRow {
  return {
    id,
    login: `${id}@example.com`,
    name: id,
    is_platform_admin: false,
    is_org_admin: false,
    phone_number: null,
    phone_verified: false,
    ...extra,
  };
}

const PHONE = { phone_number: '+4915100000000', phone_verified: true };

function request(overrides: Partial<NotifyRequest> = {}): NotifyRequest {
  return {
    category: 'billing',
    eventType: 'invoice_ready',
    organizationId: ORG,
    recipients: ['a'],
    payload: {},
    email: { subject: 'Invoice', text: 'Your invoice is ready' },
    ...overrides,
  };
}

function quietSchedule(
  accountId: string,
  emailMode: NotificationSchedule['emailMode'] = 'instant',
): NotificationSchedule {
  return {
    accountId,
    emailMode,
    quietStart: '22:00',
    quietEnd: '07:00',
    timezone: 'Europe/Berlin',
    digestHour: 8,
    lastDigestAt: null,
    updatedAt: DAY,
  };
}

function data(
  accounts: RecipientRow[],
  extra: {
    otherOrganization?: RecipientRow[];
    preferences?: Record<string, ChannelPreferences>;
    schedules?: NotificationSchedule[];
    absentAccounts?: string[];
  } = {},
): NotifyData {
  const preferences = new Map(Object.entries(extra.preferences ?? {}));
  const absence = { startsAt: at('2026-01-15T10:00:00Z'), endsAt: at('2026-01-16T10:00:00Z') };
  return {
    accountsByOrganization: new Map([
      [ORG, accounts],
      [OTHER_ORG, extra.otherOrganization ?? []],
    ]),
    preferencesByCategory: new Map([...CATALOGUE.keys()].map((key) => [key, preferences] as const)),
    schedules: extra.schedules ?? [],
    absences: new Map((extra.absentAccounts ?? []).map((id) => [id, [absence]])),
  };
}

function plan(requests: NotifyRequest[], loaded: NotifyData, now = DAY) {
  return planNotifications(requests, requestCategories(requests, CATALOGUE), loaded, now);
}

describe('requestCategories', () => {
  it("answers each request's category in request order", () => {
    const requests = [request({ category: 'feature_request' }), request(), request()];
    expect(requestCategories(requests, CATALOGUE)).toEqual([FEATURES, BILLING, BILLING]);
  });

  it('refuses the first unknown category with not_found', () => {
    const requests = [request(), request({ category: 'nope' }), request({ category: 'other' })];
    let error: unknown;
    try {
      requestCategories(requests, CATALOGUE);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(NotificationsException);
    expect(error).toMatchObject({
      code: NotificationsErrorCode.NotFound,
      status: 404,
      message: 'Unknown notification category nope',
    });
  });

  it('refuses an unknown category even without recipients', () => {
    expect(() =>
      requestCategories([request({ category: 'x', recipients: [] })], CATALOGUE),
    ).toThrow('Unknown notification category x');
  });
});

describe('recipientGroups', () => {
  it('names each recipient once per key, keys in the order first seen, and leaves out empty keys', () => {
    const requests = [
      request({ organizationId: OTHER_ORG, recipients: ['b', 'a', 'b'] }),
      request({ organizationId: null, recipients: [] }),
      request({ organizationId: ORG, recipients: ['c'] }),
      request({ organizationId: OTHER_ORG, recipients: ['a', 'd'] }),
    ];
    expect(recipientGroups(requests, (n) => requests[n].organizationId)).toEqual([
      [OTHER_ORG, ['b', 'a', 'd']],
      [ORG, ['c']],
    ]);
  });

  it('groups by any key, e.g. the category', () => {
    const requests = [request({ recipients: ['a'] }), request({ recipients: ['b', 'a'] })];
    expect(recipientGroups(requests, () => 'billing')).toEqual([['billing', ['a', 'b']]]);
  });
});

describe('planNotifications: recipients and outcomes', () => {
  it('decides each account once, in the order the accounts were read, skipping unknown ids', () => {
    const result = plan(
      [request({ recipients: ['b', 'ghost', 'a', 'b'] })],
      data([account('a'), account('b'), account('c')]),
    );
    expect(result.outcomes).toHaveLength(1);
    expect(result.outcomes[0].map((o) => o.accountId)).toEqual(['a', 'b']);
    expect(result.notifications.map((n) => n.accountId)).toEqual(['a', 'b']);
  });

  it("reads a request's accounts as its organization sees them", () => {
    // Only an admin of the request's organization gets the mandatory in-app notification.
    const loaded = data([account('a')], {
      otherOrganization: [account('a', { is_org_admin: true })],
      preferences: { a: { in_app: false } },
    });
    const result = plan([request(), request({ organizationId: OTHER_ORG })], loaded);
    expect(result.outcomes.map((o) => o[0].decision.inApp)).toEqual([false, true]);
    expect(result.notifications).toEqual([
      expect.objectContaining({ accountId: 'a', organizationId: OTHER_ORG }),
    ]);
  });

  it('answers outcomes per request in request order, each pointing at its in-app row', () => {
    const result = plan(
      [
        request({ recipients: ['a', 'b'] }),
        request({ recipients: [] }),
        request({ category: 'feature_request', eventType: 'voted', recipients: ['b'] }),
      ],
      data([account('a'), account('b')], { preferences: { a: { in_app: false } } }),
    );
    // `a` is no admin: in_app off means no row.
    expect(
      result.outcomes.map((o) => o.map(({ accountId, notification }) => [accountId, notification])),
    ).toEqual([
      [
        ['a', null],
        ['b', 0],
      ],
      [],
      [['b', 1]],
    ]);
    expect(result.notifications).toEqual([
      {
        accountId: 'b',
        organizationId: ORG,
        categoryKey: 'billing',
        eventType: 'invoice_ready',
        payload: {},
        idempotencyKey: undefined,
      },
      {
        accountId: 'b',
        organizationId: ORG,
        categoryKey: 'feature_request',
        eventType: 'voted',
        payload: {},
        idempotencyKey: undefined,
      },
    ]);
  });

  it('writes nothing for a request whose recipients are not accounts', () => {
    const result = plan([request({ recipients: ['ghost'] })], data([account('a')]));
    expect(result).toEqual({
      notifications: [],
      emails: [],
      heldEmails: [],
      deliveries: [],
      phoneSends: [],
      outcomes: [[]],
    });
  });
});

describe('planNotifications: idempotency keys', () => {
  it('keys each in-app row, and still delivers the other channels', () => {
    const result = plan(
      [request({ idempotencyKey: 'page:1', recipients: ['a', 'b'] })],
      data([account('a'), account('b')]),
    );
    expect(result.notifications.map((n) => n.idempotencyKey)).toEqual(['page:1', 'page:1']);
    expect(result.outcomes[0].map((o) => o.notification)).toEqual([0, 1]);
    // The insert decides whether a row is a repeat; e-mail goes out either way.
    expect(result.emails.map((e) => e.message.to)).toEqual(['a@example.com', 'b@example.com']);
    expect(result.deliveries.map((d) => d.notification)).toEqual([0, 1]);
    // Each e-mail's job reports to its own record.
    expect(result.emails.map((e) => result.deliveries[e.delivery])).toEqual([
      expect.objectContaining({ accountId: 'a', channel: 'email', status: 'queued' }),
      expect.objectContaining({ accountId: 'b', channel: 'email', status: 'queued' }),
    ]);
  });
});

describe('planNotifications: channels', () => {
  const opted = { a: { sms: true, phone: true } };

  it('delivers only the channels asked for, recording nothing for the others', () => {
    const result = plan(
      [request({ channels: ['in_app'] })],
      data([account('a', PHONE)], { preferences: opted }),
    );
    expect(result.outcomes[0][0].decision).toEqual({
      inApp: true,
      email: 'skip',
      phone: 'skip',
      sms: 'skip',
      reasons: [],
    });
    expect(result.notifications).toHaveLength(1);
    expect(result.emails).toEqual([]);
    expect(result.deliveries).toEqual([]);
    expect(result.phoneSends).toEqual([]);
  });

  it('turns in-app off when it is not among the channels', () => {
    const result = plan([request({ channels: ['email'] })], data([account('a')]));
    expect(result.notifications).toEqual([]);
    expect(result.outcomes[0][0]).toMatchObject({ notification: null, decision: { inApp: false } });
    expect(result.deliveries).toEqual([
      { notification: null, accountId: 'a', channel: 'email', status: 'queued', reason: null },
    ]);
  });

  it('leaves the decision as decided without channels', () => {
    const result = plan([request()], data([account('a')]));
    expect(result.outcomes[0][0].decision).toEqual({
      inApp: true,
      email: 'instant',
      phone: 'skip',
      sms: 'skip',
      reasons: ['phone_not_opted_in', 'sms_not_opted_in'],
    });
  });

  it('calls and texts a verified number, each with its own queued record', () => {
    const result = plan(
      [request({ shortText: 'Invoice ready' })],
      data([account('a', PHONE)], { preferences: opted }),
    );
    expect(result.deliveries).toEqual([
      { notification: 0, accountId: 'a', channel: 'email', status: 'queued', reason: null },
      { notification: 0, accountId: 'a', channel: 'phone', status: 'queued', reason: null },
      { notification: 0, accountId: 'a', channel: 'sms', status: 'queued', reason: null },
    ]);
    expect(result.phoneSends).toEqual([
      { channel: 'phone', to: PHONE.phone_number, text: 'Invoice ready', delivery: 1 },
      { channel: 'sms', to: PHONE.phone_number, text: 'Invoice ready', delivery: 2 },
    ]);
  });

  it('texts the e-mail subject when the request has no short text', () => {
    const result = plan(
      [request()],
      data([account('a', PHONE)], { preferences: { a: { sms: true } } }),
    );
    expect(result.phoneSends).toEqual([
      { channel: 'sms', to: PHONE.phone_number, text: 'Invoice', delivery: 1 },
    ]);
  });

  it('records an opt-in it could not honour for an unverified phone', () => {
    const result = plan(
      [request({ channels: ['sms'] })],
      data([account('a')], { preferences: { a: { sms: true, phone: false } } }),
    );
    expect(result.deliveries).toEqual([
      {
        notification: null,
        accountId: 'a',
        channel: 'sms',
        status: 'skipped',
        reason: 'phone_not_verified',
      },
    ]);
    expect(result.phoneSends).toEqual([]);
  });

  it('records an opt-in it could not honour while the account is absent', () => {
    const result = plan(
      [request()],
      data([account('a', PHONE)], { preferences: { a: { phone: true } }, absentAccounts: ['a'] }),
    );
    expect(result.outcomes[0][0].decision.email).toBe('skip');
    expect(result.emails).toEqual([]);
    expect(result.deliveries).toEqual([
      { notification: 0, accountId: 'a', channel: 'phone', status: 'skipped', reason: 'absent' },
    ]);
  });

  it('sends nothing and records nothing to a verified account without a number', () => {
    const result = plan(
      [request({ channels: ['phone'] })],
      data([account('a', { phone_verified: true })], { preferences: { a: { phone: true } } }),
    );
    expect(result.outcomes[0][0].decision.phone).toBe('send');
    expect(result.deliveries).toEqual([]);
    expect(result.phoneSends).toEqual([]);
  });
});

describe('planNotifications: e-mail', () => {
  it('sends the e-mail given at once, as a queued record', () => {
    const email = { subject: 'Invoice', text: 'Text', html: '<p>Text</p>' };
    const result = plan([request({ email })], data([account('a')]));
    expect(result.emails).toEqual([{ message: { to: 'a@example.com', ...email }, delivery: 0 }]);
    expect(result.heldEmails).toEqual([]);
  });

  it('writes a default e-mail from the category label, the event and the plain payload values', () => {
    const result = plan(
      [
        request({
          email: undefined,
          eventType: 'invoice_ready',
          payload: { amount: 12, paid: false, note: null, lines: [1, 2], meta: { a: 1 } },
        }),
      ],
      data([account('a')]),
    );
    expect(result.emails.map((e) => e.message)).toEqual([
      {
        to: 'a@example.com',
        subject: '[Billing] invoice ready',
        text: '[Billing] invoice ready\n\namount: 12\npaid: false\nnote: null',
        html: undefined,
      },
    ]);
  });

  it('holds e-mail during quiet hours', () => {
    const result = plan(
      [request()],
      data([account('a')], { schedules: [quietSchedule('a')] }),
      NIGHT,
    );
    expect(result.emails).toEqual([]);
    expect(result.heldEmails).toEqual([
      {
        accountId: 'a',
        notification: 0,
        categoryKey: 'billing',
        subject: 'Invoice',
        text: 'Your invoice is ready',
        html: null,
      },
    ]);
    expect(result.deliveries).toEqual([
      { notification: 0, accountId: 'a', channel: 'email', status: 'held', reason: 'quiet_hours' },
    ]);
  });

  it('holds e-mail for the digest of an account that reads digests', () => {
    const result = plan(
      [request()],
      data([account('a')], { schedules: [quietSchedule('a', 'daily_digest')] }),
    );
    expect(result.heldEmails).toHaveLength(1);
    expect(result.deliveries).toEqual([
      { notification: 0, accountId: 'a', channel: 'email', status: 'held', reason: 'digest' },
    ]);
  });

  it('sends a mandatory-instant category at once, even in quiet hours', () => {
    const result = plan(
      [request({ category: 'alert_escalation' })],
      data([account('a')], { schedules: [quietSchedule('a')] }),
      NIGHT,
    );
    expect(result.emails).toHaveLength(1);
    expect(result.heldEmails).toEqual([]);
  });

  it('applies each account its own schedule', () => {
    const result = plan(
      [request({ recipients: ['a', 'b'] })],
      data([account('a'), account('b')], { schedules: [quietSchedule('b')] }),
      NIGHT,
    );
    expect(result.emails.map((e) => e.message.to)).toEqual(['a@example.com']);
    expect(result.heldEmails.map((e) => e.accountId)).toEqual(['b']);
  });

  it('sends the e-mail to the address named for an account instead of its login', () => {
    const result = plan(
      [request({ recipients: ['a', 'b'], emailTo: { a: 'old-a@example.org' } })],
      data([account('a'), account('b')]),
    );
    expect(result.emails.map((e) => e.message.to)).toEqual(['old-a@example.org', 'b@example.com']);
    expect(result.deliveries.map((d) => [d.accountId, d.status])).toEqual([
      ['a', 'queued'],
      ['b', 'queued'],
    ]);
  });

  it('sends no e-mail to an account that turned it off', () => {
    const result = plan(
      [request()],
      data([account('a')], { preferences: { a: { email: false } } }),
    );
    expect(result.emails).toEqual([]);
    expect(result.deliveries).toEqual([]);
  });
});

describe('planNotifications: order', () => {
  it('lists records per request, per account: e-mail, then phone, then sms', () => {
    const result = plan(
      [
        request({ recipients: ['a', 'b'] }),
        request({ category: 'feature_request', recipients: ['a'] }),
        request({ recipients: ['b'], email: { subject: 'Second', text: 'Second' } }),
      ],
      data([account('a', PHONE), account('b')], {
        preferences: { a: { phone: true, sms: true }, b: { sms: true } },
      }),
    );
    expect(
      result.deliveries.map((d) => [d.accountId, d.channel, d.status, d.notification]),
    ).toEqual([
      ['a', 'email', 'queued', 0],
      ['a', 'phone', 'queued', 0],
      ['a', 'sms', 'queued', 0],
      ['b', 'email', 'queued', 1],
      ['b', 'sms', 'skipped', 1],
      ['a', 'phone', 'queued', 2],
      ['a', 'sms', 'queued', 2],
      ['b', 'email', 'queued', 3],
      ['b', 'sms', 'skipped', 3],
    ]);
    expect(result.phoneSends.map((s) => [s.channel, s.delivery])).toEqual([
      ['phone', 1],
      ['sms', 2],
      ['phone', 5],
      ['sms', 6],
    ]);
    expect(result.emails.map((e) => [e.message.to, e.message.subject])).toEqual([
      ['a@example.com', 'Invoice'],
      ['b@example.com', 'Invoice'],
      ['b@example.com', 'Second'],
    ]);
  });
});
