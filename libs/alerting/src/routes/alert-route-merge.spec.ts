import { describe, expect, it } from '@jest/globals';
import { AlertingErrorCode, AlertingException } from '../alerting-exception.js';
import {
  assertDoesSomething,
  assertNoProblems,
  type FieldProblem,
  mergeAlertRoute,
  parseMinSeverity,
  type RouteBody,
} from './alert-route-merge.js';
import type { AlertRouteFields, AlertRouteRow } from './alert-routes.repository.js';

const ROSTER = '11111111-1111-4111-8111-111111111111';
const MEMBER = '22222222-2222-4222-8222-222222222222';
const CHAIN = '33333333-3333-4333-8333-333333333333';
const ENDPOINT = 'AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA';

const EQ = { label: 'env', op: 'eq' as const, value: 'prod' };

function stored(extra: Partial<AlertRouteRow> = {}): AlertRouteRow {
  return {
    id: '44444444-4444-4444-8444-444444444444',
    project_id: '55555555-5555-4555-8555-555555555555',
    name: 'Databases',
    priority: 10,
    matchers: [EQ],
    escalation_chain_id: null,
    in_app_target_type: 'org_admins',
    in_app_target_roster_id: null,
    in_app_target_member_id: null,
    in_app_target_role: null,
    min_severity_for_notification: 'high',
    cooldown_seconds: 60,
    bundle_window_seconds: 45,
    enabled: true,
    last_notified_at: null,
    created_at: new Date('2030-01-01T00:00:00Z'),
    updated_at: new Date('2030-01-01T00:00:00Z'),
    notification_endpoint_ids: [],
    ...extra,
  };
}

/** The body as the validation pipe lets it through, which the types cannot always say. */
const body = (fields: Record<string, unknown>) => fields as RouteBody;

const create = (fields: Record<string, unknown> = {}) =>
  mergeAlertRoute(null, body({ priority: 5, ...fields }));

const problemsOf = (fields: Record<string, unknown>, current: AlertRouteRow | null = null) =>
  mergeAlertRoute(current, body(current ? fields : { priority: 5, ...fields })).problems;

function thrown(fn: () => void): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('mergeAlertRoute: a create', () => {
  it('takes the defaults for what the body leaves out', () => {
    expect(create()).toEqual({
      fields: {
        name: '',
        priority: 5,
        matchers: [],
        escalation_chain_id: null,
        in_app_target_type: 'org_admins',
        in_app_target_roster_id: null,
        in_app_target_member_id: null,
        in_app_target_role: null,
        min_severity_for_notification: null,
        cooldown_seconds: null,
        bundle_window_seconds: 0,
        enabled: true,
      },
      problems: [],
      references: [],
      endpointIds: undefined,
    });
  });

  it('keeps only label, op and value of each matcher', () => {
    const { fields } = create({ matchers: [{ ...EQ, extra: 1 }] });
    expect(fields.matchers).toEqual([EQ]);
  });
});

describe('mergeAlertRoute: an update', () => {
  it('keeps every field the body leaves out', () => {
    const current = stored({ in_app_target_type: 'role', in_app_target_role: 'Admin' });
    const { fields, problems, references, endpointIds } = mergeAlertRoute(current, body({}));
    expect(fields).toEqual({
      name: 'Databases',
      priority: 10,
      matchers: [EQ],
      escalation_chain_id: null,
      in_app_target_type: 'role',
      in_app_target_roster_id: null,
      in_app_target_member_id: null,
      in_app_target_role: 'Admin',
      min_severity_for_notification: 'high',
      cooldown_seconds: 60,
      bundle_window_seconds: 45,
      enabled: true,
    });
    expect([problems, references, endpointIds]).toEqual([[], [], undefined]);
  });

  it('clears with null what may be empty', () => {
    const { fields } = mergeAlertRoute(
      stored({ escalation_chain_id: CHAIN }),
      body({
        name: null,
        matchers: null,
        escalation_chain_id: null,
        min_severity_for_notification: null,
        cooldown_seconds: null,
      }),
    );
    expect(fields).toMatchObject({
      name: '',
      matchers: [],
      escalation_chain_id: null,
      min_severity_for_notification: null,
      cooldown_seconds: null,
    });
  });

  it('takes bundle_window_seconds from the body, 0 included', () => {
    expect(mergeAlertRoute(stored(), body({ bundle_window_seconds: 0 })).fields).toMatchObject({
      bundle_window_seconds: 0,
    });
    expect(mergeAlertRoute(stored(), body({ bundle_window_seconds: 600 })).fields).toMatchObject({
      bundle_window_seconds: 600,
    });
  });

  it('takes priority and enabled from the body', () => {
    const { fields } = mergeAlertRoute(stored(), body({ priority: -3, enabled: false }));
    expect(fields).toMatchObject({ priority: -3, enabled: false });
  });

  it('stores null for target ids that do not belong to the type', () => {
    const current = stored({ in_app_target_type: 'roster', in_app_target_roster_id: ROSTER });
    const { fields, references } = mergeAlertRoute(
      current,
      body({ in_app_target_type: 'role', in_app_target_role: 'Member' }),
    );
    expect(fields).toMatchObject({
      in_app_target_type: 'role',
      in_app_target_roster_id: null,
      in_app_target_member_id: null,
      in_app_target_role: 'Member',
    });
    expect(references).toEqual([]);
  });

  it('does not check the target again when the body sends no target field', () => {
    const current = stored({ in_app_target_type: 'member', in_app_target_member_id: MEMBER });
    const merged = mergeAlertRoute(current, body({ name: 'renamed' }));
    expect(merged.references).toEqual([]);
    expect(merged.fields.in_app_target_member_id).toBe(MEMBER);
  });

  it('keeps the stored target id when the body changes only the type to its own', () => {
    const current = stored({ in_app_target_type: 'roster', in_app_target_roster_id: ROSTER });
    const merged = mergeAlertRoute(current, body({ in_app_target_type: 'roster' }));
    expect(merged.fields.in_app_target_roster_id).toBe(ROSTER);
    expect(merged.references.map((r) => [r.kind, r.id])).toEqual([['roster', ROSTER]]);
  });
});

describe('mergeAlertRoute: min_severity_for_notification', () => {
  it.each([
    [null, null],
    ['', null],
    ['  ANY ', null],
    ['Critical', 'critical'],
    ['warning', 'warning'],
  ])('%j is stored as %j', (given, expected) => {
    expect(create({ min_severity_for_notification: given }).fields).toMatchObject({
      min_severity_for_notification: expected,
    });
  });

  it('parseMinSeverity refuses anything else', () => {
    expect(parseMinSeverity('severe')).toEqual({ ok: false });
    expect(parseMinSeverity(' info ')).toEqual({ ok: true, value: 'info' });
  });
});

describe('mergeAlertRoute: notification_endpoint_ids', () => {
  it('keeps ids only, lower-case, each once', () => {
    const merged = create({
      notification_endpoint_ids: [ENDPOINT, 'not-an-id', ENDPOINT.toLowerCase(), ''],
    });
    expect(merged.endpointIds).toEqual([ENDPOINT.toLowerCase()]);
  });

  it('detaches all with null or []', () => {
    expect(create({ notification_endpoint_ids: null }).endpointIds).toEqual([]);
    expect(create({ notification_endpoint_ids: [] }).endpointIds).toEqual([]);
  });

  it('leaves the attached set as it is when not given', () => {
    expect(mergeAlertRoute(stored(), body({ name: 'x' })).endpointIds).toBeUndefined();
  });
});

describe('mergeAlertRoute: problems', () => {
  it('refuses matchers that are not an array, keeping the current ones', () => {
    const merged = mergeAlertRoute(stored(), body({ matchers: 'env=prod' }));
    expect(merged.problems).toEqual([
      { field: 'matchers', messages: ['matchers must be an array'] },
    ]);
    expect(merged.fields.matchers).toEqual([EQ]);
  });

  it('names each bad matcher, keeping the current ones', () => {
    const merged = mergeAlertRoute(
      stored(),
      body({ matchers: [EQ, null, { label: '1x', op: 'like', value: 3 }] }),
    );
    expect(merged.problems).toEqual([
      { field: 'matchers[1]', messages: ['must be an object {label, op, value}'] },
      {
        field: 'matchers[2]',
        messages: ['label must be a label name', 'op must be eq or re', 'value must be a string'],
      },
    ]);
    expect(merged.fields.matchers).toEqual([EQ]);
  });

  it('refuses more than 50 matchers', () => {
    expect(problemsOf({ matchers: Array.from({ length: 51 }, () => EQ) })).toEqual([
      { field: 'matchers', messages: ['matchers must contain no more than 50 elements'] },
    ]);
  });

  it('refuses an unknown minimum severity', () => {
    expect(problemsOf({ min_severity_for_notification: 'severe' })).toEqual([
      {
        field: 'min_severity_for_notification',
        messages: [
          'min_severity_for_notification must be one of critical, high, warning, info, any, "" or null',
        ],
      },
    ]);
  });

  it.each([
    ['roster', 'in_app_target_roster_id'],
    ['member', 'in_app_target_member_id'],
    ['role', 'in_app_target_role'],
  ])('requires the target of type %s on create', (type, field) => {
    expect(problemsOf({ in_app_target_type: type })).toEqual([
      { field, messages: [`${field} is required when in_app_target_type is ${type}`] },
    ]);
  });

  it('requires the target when an update sends a target field', () => {
    const current = stored({ in_app_target_type: 'member', in_app_target_member_id: MEMBER });
    expect(problemsOf({ in_app_target_member_id: null }, current)).toEqual([
      {
        field: 'in_app_target_member_id',
        messages: ['in_app_target_member_id is required when in_app_target_type is member'],
      },
    ]);
  });

  it('names every problem, in field order', () => {
    const problems = problemsOf({
      matchers: 'x',
      min_severity_for_notification: 'x',
      in_app_target_type: 'role',
    });
    expect(problems.map((p) => p.field)).toEqual([
      'matchers',
      'min_severity_for_notification',
      'in_app_target_role',
    ]);
  });
});

describe('mergeAlertRoute: references for the database', () => {
  it.each([
    [
      'roster',
      { in_app_target_type: 'roster', in_app_target_roster_id: ROSTER },
      ROSTER,
      'in_app_target_roster_id',
      'in_app_target_roster_id must be an on-call roster of this project',
    ],
    [
      'member',
      { in_app_target_type: 'member', in_app_target_member_id: MEMBER },
      MEMBER,
      'in_app_target_member_id',
      "in_app_target_member_id must be an account holding a membership in the project's organization",
    ],
    [
      'chain',
      { escalation_chain_id: CHAIN },
      CHAIN,
      'escalation_chain_id',
      'escalation_chain_id must be an escalation chain of this project',
    ],
  ])('asks to check the %s, with the problem to report', (kind, fields, id, field, message) => {
    expect(create(fields).references).toEqual([
      { kind, id, problem: { field, messages: [message] } },
    ]);
  });

  it('checks the target before the chain', () => {
    const merged = create({
      in_app_target_type: 'member',
      in_app_target_member_id: MEMBER,
      escalation_chain_id: CHAIN,
    });
    expect(merged.references.map((r) => r.kind)).toEqual(['member', 'chain']);
  });

  it('checks the chain only when the body sends one', () => {
    expect(mergeAlertRoute(stored({ escalation_chain_id: CHAIN }), body({})).references).toEqual(
      [],
    );
  });
});

describe('assertNoProblems', () => {
  it('passes without problems', () => {
    expect(() => assertNoProblems([])).not.toThrow();
  });

  it('refuses with 422 validation_failed naming every field', () => {
    const problems: FieldProblem[] = [
      { field: 'matchers', messages: ['matchers must be an array'] },
      { field: 'escalation_chain_id', messages: ['one', 'two'] },
    ];
    const error = thrown(() => assertNoProblems(problems));
    expect(error).toBeInstanceOf(AlertingException);
    expect(error).toMatchObject({
      status: 422,
      code: AlertingErrorCode.ValidationFailed,
      message: 'Validation failed: matchers must be an array; one, two',
      details: { fields: problems },
    });
  });
});

describe('assertDoesSomething', () => {
  const fields = (extra: Partial<AlertRouteFields> = {}): AlertRouteFields => ({
    ...create().fields,
    in_app_target_type: 'none',
    ...extra,
  });

  it.each<[string, Partial<AlertRouteFields>, Array<{ enabled: boolean }>]>([
    ['an in-app target', { in_app_target_type: 'org_admins' }, []],
    ['a chain', { escalation_chain_id: CHAIN }, []],
    ['an enabled endpoint', {}, [{ enabled: false }, { enabled: true }]],
  ])('passes a route with %s', (_, extra, endpoints) => {
    expect(() => assertDoesSomething(fields(extra), endpoints)).not.toThrow();
  });

  it('refuses with 422 route_does_nothing otherwise', () => {
    const error = thrown(() => assertDoesSomething(fields(), [{ enabled: false }]));
    expect(error).toBeInstanceOf(AlertingException);
    expect(error).toMatchObject({
      status: 422,
      code: AlertingErrorCode.RouteDoesNothing,
      message:
        'A route must do something: choose an in-app target other than none, an escalation chain, or attach at least one enabled notification endpoint',
      details: {
        in_app_target_type: 'none',
        escalation_chain_id: null,
        enabled_notification_endpoints: 0,
      },
    });
  });
});
