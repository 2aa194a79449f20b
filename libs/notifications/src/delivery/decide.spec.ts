import { describe, expect, it } from '@jest/globals';
import {
  DEFAULT_SCHEDULE,
  MANDATORY_INSTANT_CATEGORIES,
  decideDelivery,
  digestDue,
  isAbsent,
  isMandatoryInstant,
  type Channel,
  type DeliveryDecision,
  type DeliveryInput,
  type EmailMode,
  type ScheduleSettings,
} from './decide.js';

const at = (iso: string): Date => new Date(iso);

// Europe/Berlin in January is UTC+1.
const DAY = at('2026-01-15T11:00:00Z'); // 12:00 local
const NIGHT = at('2026-01-15T23:00:00Z'); // 00:00 local

const CATEGORIES: Record<string, DeliveryInput['category']> = {
  security: { key: 'security', defaultChannels: ['in_app', 'email'], mandatoryForAdmins: true },
  platform_incident: {
    key: 'platform_incident',
    defaultChannels: ['in_app', 'email'],
    mandatoryForAdmins: true,
  },
  alert_escalation: {
    key: 'alert_escalation',
    defaultChannels: ['in_app', 'email'],
    mandatoryForAdmins: true,
  },
  billing: { key: 'billing', defaultChannels: ['in_app', 'email'], mandatoryForAdmins: true },
  capability_update: {
    key: 'capability_update',
    defaultChannels: ['in_app', 'email'],
    mandatoryForAdmins: true,
  },
  feature_request: {
    key: 'feature_request',
    defaultChannels: ['in_app'],
    mandatoryForAdmins: false,
  },
  no_defaults: { key: 'no_defaults', defaultChannels: [], mandatoryForAdmins: false },
};

const MEMBER = { isOrgAdmin: false, isPlatformAdmin: false, phoneVerified: false };
const ORG_ADMIN = { ...MEMBER, isOrgAdmin: true };
const PLATFORM_ADMIN = { ...MEMBER, isPlatformAdmin: true };
const VERIFIED = { ...MEMBER, phoneVerified: true };

const QUIET: ScheduleSettings = { ...DEFAULT_SCHEDULE, quietStart: '22:00', quietEnd: '07:00' };
const schedule = (emailMode: EmailMode, quiet = false): ScheduleSettings => ({
  ...(quiet ? QUIET : DEFAULT_SCHEDULE),
  emailMode,
});

// Absent from 2026-01-15 10:00Z to 2026-01-16 10:00Z, which covers DAY and NIGHT.
const ABSENCE = { startsAt: at('2026-01-15T10:00:00Z'), endsAt: at('2026-01-16T10:00:00Z') };

function input(overrides: Partial<DeliveryInput> & { categoryKey?: string } = {}): DeliveryInput {
  const { categoryKey = 'billing', ...rest } = overrides;
  return {
    category: CATEGORIES[categoryKey],
    recipient: MEMBER,
    preferences: {},
    schedule: DEFAULT_SCHEDULE,
    absences: [],
    now: DAY,
    ...rest,
  };
}

describe('constants', () => {
  it('default schedule: instant, no quiet hours, Europe/Berlin, digest at 8', () => {
    expect(DEFAULT_SCHEDULE).toEqual({
      emailMode: 'instant',
      quietStart: null,
      quietEnd: null,
      timeZone: 'Europe/Berlin',
      digestHour: 8,
    });
    expect(Object.isFrozen(DEFAULT_SCHEDULE)).toBe(true);
  });

  it.each([
    ['security', true],
    ['platform_incident', true],
    ['alert_escalation', true],
    ['billing', false],
    ['capability_update', false],
    ['feature_request', false],
  ])('isMandatoryInstant(%j) is %j', (key, expected) => {
    expect(isMandatoryInstant(key)).toBe(expected);
  });

  it('lists the mandatory-instant categories', () => {
    expect([...MANDATORY_INSTANT_CATEGORIES]).toEqual([
      'security',
      'platform_incident',
      'alert_escalation',
    ]);
  });
});

describe('decideDelivery: in-app (rule 1)', () => {
  it.each<[string, string, DeliveryInput['recipient'], boolean | undefined, boolean, string[]]>([
    // preference, else default
    ['feature_request', 'member', MEMBER, undefined, true, []],
    ['feature_request', 'member', MEMBER, false, false, ['in_app_disabled']],
    ['no_defaults', 'member', MEMBER, undefined, false, ['in_app_disabled']],
    ['no_defaults', 'member', MEMBER, true, true, []],
    // not mandatory: admins may turn it off
    ['feature_request', 'org admin', ORG_ADMIN, false, false, ['in_app_disabled']],
    // mandatory for admins: forced on for org and platform admins, not for members
    ['billing', 'member', MEMBER, false, false, ['in_app_disabled']],
    ['billing', 'org admin', ORG_ADMIN, false, true, ['mandatory_in_app']],
    ['billing', 'platform admin', PLATFORM_ADMIN, false, true, ['mandatory_in_app']],
    ['billing', 'org admin', ORG_ADMIN, true, true, []],
    ['billing', 'org admin', ORG_ADMIN, undefined, true, []],
    ['security', 'org admin', ORG_ADMIN, false, true, ['mandatory_in_app']],
  ])('%s, %s, saved in_app %j → %j', (categoryKey, _who, recipient, saved, expected, reasons) => {
    const preferences = saved === undefined ? {} : { in_app: saved };
    const decision = decideDelivery(input({ categoryKey, recipient, preferences }));
    expect(decision.inApp).toBe(expected);
    for (const reason of ['in_app_disabled', 'mandatory_in_app']) {
      expect(decision.reasons.includes(reason)).toBe(reasons.includes(reason));
    }
  });

  it('keeps in-app during an absence and quiet hours', () => {
    const decision = decideDelivery(
      input({ absences: [ABSENCE], schedule: QUIET, now: NIGHT, categoryKey: 'feature_request' }),
    );
    expect(decision.inApp).toBe(true);
  });
});

describe('decideDelivery: e-mail', () => {
  const EMAIL_REASONS = ['email_disabled', 'mandatory_instant', 'absent', 'quiet_hours', 'digest'];

  it.each<[string, string, Partial<DeliveryInput>, DeliveryDecision['email'], string | null]>([
    // rule 2: preference, else default; disabled → skip, for every category
    ['billing default', 'billing', {}, 'instant', null],
    ['feature_request default', 'feature_request', {}, 'skip', 'email_disabled'],
    [
      'feature_request opted in',
      'feature_request',
      { preferences: { email: true } },
      'instant',
      null,
    ],
    ['billing disabled', 'billing', { preferences: { email: false } }, 'skip', 'email_disabled'],
    ['security disabled', 'security', { preferences: { email: false } }, 'skip', 'email_disabled'],
    [
      'disabled beats absence',
      'billing',
      { preferences: { email: false }, absences: [ABSENCE] },
      'skip',
      'email_disabled',
    ],
    // rule 6: instant mode holds during quiet hours
    ['instant by day', 'billing', { schedule: QUIET, now: DAY }, 'instant', null],
    ['instant at night', 'billing', { schedule: QUIET, now: NIGHT }, 'hold', 'quiet_hours'],
    // rule 5: digest modes accumulate, quiet or not (the flush applies the quiet gate)
    ['hourly digest', 'billing', { schedule: schedule('hourly_digest') }, 'digest', 'digest'],
    ['daily digest', 'billing', { schedule: schedule('daily_digest') }, 'digest', 'digest'],
    [
      'daily digest at night',
      'capability_update',
      { schedule: schedule('daily_digest', true), now: NIGHT },
      'digest',
      'digest',
    ],
    // rule 8: absence skips (not holds) non-mandatory e-mail
    ['absent', 'billing', { absences: [ABSENCE] }, 'skip', 'absent'],
    [
      'absent in quiet hours',
      'billing',
      { absences: [ABSENCE], schedule: QUIET, now: NIGHT },
      'skip',
      'absent',
    ],
    [
      'absent in digest mode',
      'billing',
      { absences: [ABSENCE], schedule: schedule('daily_digest') },
      'skip',
      'absent',
    ],
  ])('%s → %j', (_name, categoryKey, overrides, expected, reason) => {
    const decision = decideDelivery(input({ categoryKey, ...overrides }));
    expect(decision.email).toBe(expected);
    expect(decision.reasons.filter((r) => EMAIL_REASONS.includes(r))).toEqual(
      reason ? [reason] : [],
    );
  });
});

describe('decideDelivery: mandatory-instant categories (rule 4)', () => {
  const cases = MANDATORY_INSTANT_CATEGORIES.flatMap((categoryKey) =>
    (
      [
        ['instant by day', {}],
        ['quiet hours', { schedule: QUIET, now: NIGHT }],
        ['hourly digest', { schedule: schedule('hourly_digest') }],
        ['daily digest in quiet hours', { schedule: schedule('daily_digest', true), now: NIGHT }],
        ['absence', { absences: [ABSENCE] }],
        [
          'absence, quiet and digest',
          { absences: [ABSENCE], schedule: schedule('daily_digest', true), now: NIGHT },
        ],
      ] as Array<[string, Partial<DeliveryInput>]>
    ).map(([name, overrides]) => [categoryKey, name, overrides] as const),
  );

  it.each(cases)('%s bypasses %s', (categoryKey, _name, overrides) => {
    const decision = decideDelivery(
      input({
        categoryKey,
        recipient: VERIFIED,
        preferences: { phone: true, sms: true },
        ...overrides,
      }),
    );
    expect(decision).toEqual({
      inApp: true,
      email: 'instant',
      phone: 'send',
      sms: 'send',
      reasons: ['mandatory_instant'],
    });
  });

  it.each(['billing', 'capability_update'])(
    '%s is mandatory for admins in-app but its e-mail is held in quiet hours',
    (categoryKey) => {
      const decision = decideDelivery(
        input({ categoryKey, recipient: ORG_ADMIN, schedule: QUIET, now: NIGHT }),
      );
      expect(decision.email).toBe('hold');
      expect(decision.inApp).toBe(true);
    },
  );
});

describe('decideDelivery: phone and sms (rules 3 and 8)', () => {
  it.each<
    [
      string,
      DeliveryInput['recipient'],
      Partial<Record<Channel, boolean>>,
      Partial<DeliveryInput>,
      'send' | 'skip',
      'send' | 'skip',
      string[],
    ]
  >([
    ['no preference', VERIFIED, {}, {}, 'skip', 'skip', ['phone_not_opted_in', 'sms_not_opted_in']],
    [
      'explicitly off',
      VERIFIED,
      { phone: false, sms: false },
      {},
      'skip',
      'skip',
      ['phone_not_opted_in', 'sms_not_opted_in'],
    ],
    ['phone only', VERIFIED, { phone: true }, {}, 'send', 'skip', ['sms_not_opted_in']],
    ['sms only', VERIFIED, { sms: true }, {}, 'skip', 'send', ['phone_not_opted_in']],
    ['both', VERIFIED, { phone: true, sms: true }, {}, 'send', 'send', []],
    [
      'unverified phone',
      MEMBER,
      { phone: true, sms: true },
      {},
      'skip',
      'skip',
      ['phone_not_verified'],
    ],
    [
      'absent',
      VERIFIED,
      { phone: true, sms: true },
      { absences: [ABSENCE] },
      'skip',
      'skip',
      ['absent'],
    ],
    [
      'quiet hours do not apply',
      VERIFIED,
      { phone: true, sms: true },
      { schedule: QUIET, now: NIGHT },
      'send',
      'send',
      [],
    ],
  ])('%s → phone %s, sms %s', (_name, recipient, saved, overrides, phone, sms, reasons) => {
    const decision = decideDelivery(
      input({
        categoryKey: 'billing',
        recipient,
        preferences: { email: false, ...saved },
        ...overrides,
      }),
    );
    expect(decision.phone).toBe(phone);
    expect(decision.sms).toBe(sms);
    expect(decision.reasons.filter((r) => r !== 'email_disabled')).toEqual(reasons);
  });

  it('never defaults to phone or sms, even if a category lists them', () => {
    const category = {
      key: 'odd',
      defaultChannels: ['in_app', 'phone', 'sms'] as Channel[],
      mandatoryForAdmins: false,
    };
    const decision = decideDelivery({ ...input({ recipient: VERIFIED }), category });
    expect([decision.phone, decision.sms]).toEqual(['skip', 'skip']);
  });

  it('lists a shared reason once', () => {
    const decision = decideDelivery(
      input({
        recipient: VERIFIED,
        preferences: { phone: true, sms: true },
        absences: [ABSENCE],
      }),
    );
    expect(decision.reasons).toEqual(['absent']);
  });
});

describe('decideDelivery: absence edges (rule 8)', () => {
  const startsAt = at('2026-01-15T10:00:00Z');
  const endsAt = at('2026-01-15T12:00:00Z');

  it.each([
    ['a millisecond before the start', '2026-01-15T09:59:59.999Z', false],
    ['at the start (inclusive)', '2026-01-15T10:00:00.000Z', true],
    ['inside', '2026-01-15T11:00:00.000Z', true],
    ['a millisecond before the end', '2026-01-15T11:59:59.999Z', true],
    ['at the end (exclusive)', '2026-01-15T12:00:00.000Z', false],
  ])('%s: absent %j', (_name, iso, absent) => {
    const now = at(iso);
    expect(isAbsent([{ startsAt, endsAt }], now)).toBe(absent);
    const decision = decideDelivery(
      input({
        recipient: VERIFIED,
        preferences: { phone: true, sms: true },
        absences: [{ startsAt, endsAt }],
        now,
      }),
    );
    const expected = absent ? ['skip', 'skip', 'skip'] : ['instant', 'send', 'send'];
    expect([decision.email, decision.phone, decision.sms]).toEqual(expected);
    expect(decision.inApp).toBe(true);
  });

  it('checks every absence', () => {
    const absences = [
      { startsAt: at('2026-01-01T00:00:00Z'), endsAt: at('2026-01-02T00:00:00Z') },
      { startsAt, endsAt },
    ];
    expect(isAbsent(absences, at('2026-01-15T11:00:00Z'))).toBe(true);
    expect(isAbsent(absences, at('2026-01-10T00:00:00Z'))).toBe(false);
    expect(isAbsent([], at('2026-01-10T00:00:00Z'))).toBe(false);
  });
});

describe('digestDue', () => {
  const daily = (digestHour: number, quiet = false): ScheduleSettings => ({
    ...schedule('daily_digest', quiet),
    digestHour,
  });

  it.each<[string, ScheduleSettings, string | null, string, boolean]>([
    // instant: held mail is released whenever it is not quiet
    ['instant by day', schedule('instant'), null, '2026-01-15T11:00:00Z', true],
    ['instant, quiet', schedule('instant', true), null, '2026-01-15T23:00:00Z', false],
    ['instant, quiet ends 07:00', schedule('instant', true), null, '2026-01-16T06:00:00Z', true],
    // hourly: at most once per UTC clock hour
    ['hourly, never sent', schedule('hourly_digest'), null, '2026-01-15T11:05:00Z', true],
    [
      'hourly, sent this hour',
      schedule('hourly_digest'),
      '2026-01-15T11:00:00Z',
      '2026-01-15T11:59:59Z',
      false,
    ],
    [
      'hourly, sent last hour',
      schedule('hourly_digest'),
      '2026-01-15T10:59:00Z',
      '2026-01-15T11:00:00Z',
      true,
    ],
    [
      'hourly, quiet',
      schedule('hourly_digest', true),
      '2026-01-15T20:00:00Z',
      '2026-01-15T23:00:00Z',
      false,
    ],
    // daily: at digestHour local time, once per local date
    ['daily, never sent, at 08:00', daily(8), null, '2026-01-15T07:00:00Z', true],
    ['daily, at 08:45', daily(8), '2026-01-14T07:00:00Z', '2026-01-15T07:45:00Z', true],
    ['daily, at 07:59', daily(8), '2026-01-14T07:00:00Z', '2026-01-15T06:59:00Z', false],
    ['daily, at 09:00', daily(8), '2026-01-14T07:00:00Z', '2026-01-15T08:00:00Z', false],
    ['daily, sent today', daily(8), '2026-01-15T07:00:00Z', '2026-01-15T07:15:00Z', false],
    ['daily, summer 08:00 is 06:00Z', daily(8), null, '2026-07-15T06:00:00Z', true],
    ['daily, summer 07:00Z is 09:00', daily(8), null, '2026-07-15T07:00:00Z', false],
    // rule 7: digest_hour inside the quiet window never flushes
    ['daily 06:00 in quiet 22–07', daily(6, true), null, '2026-01-15T05:00:00Z', false],
    ['daily 06:00 in quiet, at 07:00', daily(6, true), null, '2026-01-15T06:00:00Z', false],
    ['daily 23:00 in quiet 22–07', daily(23, true), null, '2026-01-15T22:00:00Z', false],
    ['daily 00:00 in quiet 22–07', daily(0, true), null, '2026-01-15T23:00:00Z', false],
    ['daily 07:00 just after quiet', daily(7, true), null, '2026-01-15T06:00:00Z', true],
    ['daily 21:00 just before quiet', daily(21, true), null, '2026-01-15T20:30:00Z', true],
  ])('%s → %j', (_name, settings, last, now, expected) => {
    expect(digestDue(settings, last === null ? null : at(last), at(now))).toBe(expected);
  });

  it.each<[string, number, string | null, string, boolean]>([
    // 2026-03-29, spring forward at 01:00Z: 08:00 local is 06:00Z (CEST)
    ['spring, 08:00 CEST', 8, '2026-03-28T07:00:00Z', '2026-03-29T06:00:00Z', true],
    ['spring, 07:00Z is 09:00 CEST', 8, '2026-03-28T07:00:00Z', '2026-03-29T07:00:00Z', false],
    ['spring, 05:59Z is 07:59 CEST', 8, '2026-03-28T07:00:00Z', '2026-03-29T05:59:00Z', false],
    ['spring, 01:00 CET', 1, '2026-03-28T00:00:00Z', '2026-03-29T00:00:00Z', true],
    // 02:00–02:59 does not exist that day: a 2 o'clock digest skips it
    ['spring, 00:59Z is 01:59 CET', 2, '2026-03-28T01:00:00Z', '2026-03-29T00:59:00Z', false],
    ['spring, 01:00Z is 03:00 CEST', 2, '2026-03-28T01:00:00Z', '2026-03-29T01:00:00Z', false],
    // 2026-10-25, fall back at 01:00Z: 08:00 local is 07:00Z (CET)
    ['autumn, 08:00 CET', 8, '2026-10-24T06:00:00Z', '2026-10-25T07:00:00Z', true],
    ['autumn, 06:00Z is 07:00 CET', 8, '2026-10-24T06:00:00Z', '2026-10-25T06:00:00Z', false],
    // 02:00–02:59 happens twice that day: only the first pass flushes
    ['autumn, first 02:00 (CEST)', 2, '2026-10-24T00:00:00Z', '2026-10-25T00:00:00Z', true],
    ['autumn, second 02:00 (CET)', 2, '2026-10-25T00:00:00Z', '2026-10-25T01:00:00Z', false],
  ])('DST day in Berlin: %s → %j', (_name, digestHour, last, now, expected) => {
    expect(digestDue(daily(digestHour), last === null ? null : at(last), at(now))).toBe(expected);
  });

  it.each([
    // quiet 01:30–03:30 on the DST days keeps a 3 o'clock digest back until 03:30
    ['2026-03-29T01:00:00Z', false], // 03:00 CEST, quiet
    ['2026-03-29T01:30:00Z', true], // 03:30 CEST
    ['2026-10-25T02:00:00Z', false], // 03:00 CET, quiet
    ['2026-10-25T02:30:00Z', true], // 03:30 CET
  ])('DST day, digest at 03:00 with quiet 01:30–03:30, at %s → %j', (iso, expected) => {
    const settings = { ...daily(3), quietStart: '01:30', quietEnd: '03:30' };
    expect(digestDue(settings, null, at(iso))).toBe(expected);
  });

  it('uses the schedule time zone', () => {
    const ny = { ...daily(8), timeZone: 'America/New_York' };
    expect(digestDue(ny, null, at('2026-01-15T13:00:00Z'))).toBe(true); // 08:00 EST
    expect(digestDue(ny, null, at('2026-01-15T07:00:00Z'))).toBe(false); // 02:00 EST
  });
});
