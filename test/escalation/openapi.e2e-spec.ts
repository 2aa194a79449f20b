import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createApiTestApp } from '../support/api-app.js';
import { seedAccount } from '../support/factories.js';
import { alertsProject } from '../support/alerting.js';
import { bearer, type TestAccount } from '../support/identity.js';

interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  nullable?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  additionalProperties?: Schema;
  minimum?: number;
  maximum?: number;
  pattern?: string;
}
interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  tags: string[];
  parameters: Array<{ name: string; in: string; required?: boolean; schema: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}
type Body = Record<string, unknown>;

const P = '/projects/{project_id}';
const ROSTER = `${P}/on_call_rosters/{id}`;
const CHAIN = `${P}/escalation_chains/{id}`;

/** Every escalation route with its methods. */
const ROUTES: Record<string, string[]> = {
  [`${P}/on_call_rosters`]: ['get', 'post'],
  [ROSTER]: ['delete', 'get', 'patch'],
  [`${ROSTER}/shifts`]: ['get'],
  [`${ROSTER}/on_call_roster_members`]: ['get', 'post'],
  [`${ROSTER}/on_call_roster_members/{member_id}`]: ['delete', 'patch'],
  [`${ROSTER}/on_call_roster_phone_contacts`]: ['get', 'post'],
  [`${ROSTER}/on_call_roster_phone_contacts/{contact_id}`]: ['delete', 'get', 'patch'],
  [`${ROSTER}/rotation`]: ['delete', 'get', 'put'],
  [`${ROSTER}/on_call_overrides`]: ['get', 'post'],
  [`${ROSTER}/on_call_overrides/{override_id}`]: ['delete', 'get'],
  [`${ROSTER}/calendar_feed`]: ['post'],
  [`${P}/escalation_chains`]: ['get', 'post'],
  [CHAIN]: ['delete', 'get', 'patch'],
  [`${CHAIN}/clone`]: ['post'],
  [`${CHAIN}/resolved_targets`]: ['get'],
  [`${CHAIN}/escalation_steps`]: ['get', 'post'],
  [`${CHAIN}/escalation_steps/{step_id}`]: ['delete', 'get', 'patch'],
  [`${P}/alerts/{id}/ack`]: ['delete', 'post'],
  '/alerts/ack/{signed_id}': ['get', 'post'],
  '/alerts/phone_ack/{token}': ['post'],
  '/alerts/sms_reply': ['post'],
  '/calendar_feeds/{feed_key}': ['get'],
};

/** [method, path, success status, data schema, list?]; null: no body. */
const SUCCESSES: Array<[string, string, string, string | null, boolean?]> = [
  ['get', `${P}/on_call_rosters`, '200', 'OnCallRoster', true],
  ['post', `${P}/on_call_rosters`, '201', 'OnCallRoster'],
  ['get', ROSTER, '200', 'OnCallRoster'],
  ['patch', ROSTER, '200', 'OnCallRoster'],
  ['delete', ROSTER, '204', null],
  ['get', `${ROSTER}/shifts`, '200', 'OnCallShift', true],
  ['get', `${ROSTER}/on_call_roster_members`, '200', 'OnCallRosterMember', true],
  ['post', `${ROSTER}/on_call_roster_members`, '201', 'OnCallRosterMember'],
  ['patch', `${ROSTER}/on_call_roster_members/{member_id}`, '200', 'OnCallRosterMember'],
  ['delete', `${ROSTER}/on_call_roster_members/{member_id}`, '204', null],
  ['get', `${ROSTER}/on_call_roster_phone_contacts`, '200', 'OnCallRosterPhoneContact', true],
  ['post', `${ROSTER}/on_call_roster_phone_contacts`, '201', 'OnCallRosterPhoneContact'],
  [
    'get',
    `${ROSTER}/on_call_roster_phone_contacts/{contact_id}`,
    '200',
    'OnCallRosterPhoneContact',
  ],
  [
    'patch',
    `${ROSTER}/on_call_roster_phone_contacts/{contact_id}`,
    '200',
    'OnCallRosterPhoneContact',
  ],
  ['delete', `${ROSTER}/on_call_roster_phone_contacts/{contact_id}`, '204', null],
  ['get', `${ROSTER}/rotation`, '200', 'OnCallRotation'],
  ['put', `${ROSTER}/rotation`, '200', 'OnCallRotation'],
  ['delete', `${ROSTER}/rotation`, '204', null],
  ['get', `${ROSTER}/on_call_overrides`, '200', 'OnCallOverride', true],
  ['post', `${ROSTER}/on_call_overrides`, '201', 'OnCallOverride'],
  ['get', `${ROSTER}/on_call_overrides/{override_id}`, '200', 'OnCallOverride'],
  ['delete', `${ROSTER}/on_call_overrides/{override_id}`, '204', null],
  ['post', `${ROSTER}/calendar_feed`, '201', 'OnCallCalendarFeed'],
  ['get', `${P}/escalation_chains`, '200', 'EscalationChain', true],
  ['post', `${P}/escalation_chains`, '201', 'EscalationChain'],
  ['post', `${CHAIN}/clone`, '201', 'EscalationChain'],
  ['get', `${CHAIN}/resolved_targets`, '200', 'ResolvedStepTargets', true],
  ['post', `${CHAIN}/escalation_steps`, '201', 'EscalationStep'],
  ['delete', `${CHAIN}/escalation_steps/{step_id}`, '204', null],
  ['post', `${P}/alerts/{id}/ack`, '200', 'Alert'],
  ['delete', `${P}/alerts/{id}/ack`, '200', 'Alert'],
  ['get', '/alerts/ack/{signed_id}', '200', 'SignedAckLink'],
  ['post', '/alerts/ack/{signed_id}', '200', 'SignedAckResult'],
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('the OpenAPI document of the escalation API', () => {
  let t: TestApp;
  let doc: Document;
  let owner: TestAccount;
  let projectId: string;

  beforeAll(async () => {
    t = await createApiTestApp({ withWorker: true });
    doc = (await t.request().get('/openapi.json').expect(200)).body as Document;
    owner = await seedAccount(t, 'owner@openapi-escalation.example');
    projectId = await alertsProject(t, owner, 'documented');
  });

  afterAll(async () => {
    await t.close();
  });

  const op = (method: string, path: string) => doc.paths[path][method];
  const schema = (name: string) => doc.components.schemas[name];
  const resolve = (s: Schema): Schema => (s.$ref ? resolve(schema(s.$ref.split('/').pop()!)) : s);
  const requestBody = (method: string, path: string) =>
    resolve(op(method, path).requestBody!.content['application/json'].schema);
  const errorCodes = (method: string, path: string, status: string) => {
    const content = op(method, path).responses[status]?.content?.['application/json'];
    const [envelope, codes] = content?.schema.allOf ?? [];
    expect(envelope).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
    return codes.properties!.code.enum;
  };
  const projectOperations = () =>
    Object.entries(ROUTES)
      .filter(([path]) => path.startsWith(P))
      .flatMap(([path, methods]) => methods.map((method) => [method, path] as const));

  /** Where `value` departs from `s`: undocumented or missing fields, wrong types, enums. */
  const departures = (value: unknown, s: Schema, at = 'data'): string[] => {
    if (s.$ref) return departures(value, resolve(s), at);
    if (value === null) return s.nullable ? [] : [`${at} is null`];
    if (s.allOf) return s.allOf.flatMap((part) => departures(value, part, at));
    if (s.oneOf) {
      const fits = s.oneOf.filter((part) => departures(value, part, at).length === 0).length;
      return fits === 1 ? [] : [`${at} fits ${fits} of its oneOf schemas`];
    }
    if (s.enum && !s.enum.includes(value))
      return [`${at}: ${JSON.stringify(value)} not in the enum`];
    switch (s.type) {
      case 'string':
        if (typeof value !== 'string') return [`${at} is not a string`];
        if (s.format === 'uuid' && !UUID.test(value)) return [`${at} is not a uuid`];
        if (s.format === 'date-time' && Number.isNaN(Date.parse(value)))
          return [`${at} is not a date-time`];
        return [];
      case 'integer':
        return Number.isInteger(value) ? [] : [`${at} is not an integer`];
      case 'boolean':
        return typeof value === 'boolean' ? [] : [`${at} is not a boolean`];
      case 'array':
        return Array.isArray(value)
          ? value.flatMap((item, i) => departures(item, s.items!, `${at}[${i}]`))
          : [`${at} is not an array`];
      case 'object': {
        if (typeof value !== 'object' || Array.isArray(value)) return [`${at} is not an object`];
        const entries = Object.entries(value as Body);
        if (!s.properties)
          return entries.flatMap(([k, v]) => departures(v, s.additionalProperties!, `${at}.${k}`));
        return [
          ...entries.flatMap(([k, v]) =>
            s.properties![k]
              ? departures(v, s.properties![k], `${at}.${k}`)
              : [`${at}.${k} is not documented`],
          ),
          ...(s.required ?? [])
            .filter((k) => !(k in (value as Body)))
            .map((k) => `${at}.${k} is missing`),
        ];
      }
      default:
        return [`${at}: no type documented`];
    }
  };
  /**
   * Sends `method` to the route `path` (its `{ids}` filled from `ids`) as the owner and checks
   * the answer against the success response the document names for that route.
   */
  const documented = async <T = Body>(
    method: 'get' | 'post' | 'patch' | 'put' | 'delete',
    path: string,
    ids: Record<string, string>,
    body?: Body,
  ): Promise<T> => {
    const target = path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name]);
    const res = await t.request()[method](target).set(bearer(owner.jwt)).send(body);
    const response = op(method, path.split('?')[0]).responses[String(res.status)];
    expect([method, path, res.status, response === undefined]).toEqual([
      method,
      path,
      res.status,
      false,
    ]);
    expect(departures(res.body, response.content!['application/json'].schema, 'body')).toEqual([]);
    return res.body.data as T;
  };

  it('lists every escalation route with its methods', () => {
    for (const [path, methods] of Object.entries(ROUTES)) {
      expect([path, Object.keys(doc.paths[path] ?? {}).sort()]).toEqual([path, methods]);
    }
  });

  it('tags, summarizes and describes every operation, with its path ids as UUIDs', () => {
    for (const [path, methods] of Object.entries(ROUTES)) {
      for (const method of methods) {
        const operation = op(method, path);
        expect(operation.tags).toContain('escalation');
        expect(operation.summary).toMatch(/\w/);
        expect(operation.description!.length).toBeGreaterThan(20);
        const ids = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        for (const id of ids) {
          const parameter = operation.parameters.find((p) => p.name === id && p.in === 'path');
          expect([method, path, id, parameter?.schema.type]).toEqual([method, path, id, 'string']);
          if (!['signed_id', 'token', 'feed_key'].includes(id))
            expect([method, path, id, parameter!.schema.format]).toEqual([
              method,
              path,
              id,
              'uuid',
            ]);
        }
      }
    }
  });

  it('documents create bodies with their enums, bounds and required fields', () => {
    const step = requestBody('post', `${CHAIN}/escalation_steps`);
    expect(step.required).toEqual(['target_type', 'channels']);
    // `roster` last: the deprecated name of roster_members, still accepted.
    expect(step.properties!.target_type.enum).toEqual([
      'roster_on_call',
      'roster_members',
      'member',
      'role',
      'org_admins',
      'phone_contacts',
      'roster',
    ]);
    expect(step.properties!.channels).toMatchObject({
      type: 'array',
      items: { type: 'string', enum: ['in_app', 'email', 'phone', 'sms'] },
    });
    expect(step.properties!.target_role.enum).toEqual(['Admin', 'Member']);
    expect(step.properties!.delay_seconds).toMatchObject({
      type: 'integer',
      minimum: 0,
      maximum: 86400,
      default: 0,
    });
    expect(step.properties!.target_roster_id).toMatchObject({
      type: 'string',
      format: 'uuid',
      nullable: true,
    });

    const rotation = requestBody('put', `${ROSTER}/rotation`);
    expect(rotation.required).toEqual(['time_zone', 'start_date', 'handoff_time', 'shift_length']);
    expect(rotation.properties!.shift_length.enum).toEqual(['daily', 'weekly', 'hours']);
    expect(rotation.properties!.shift_hours).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 744,
      nullable: true,
    });

    const chain = requestBody('post', `${P}/escalation_chains`);
    expect(chain.required).toEqual(['name']);
    expect(chain.properties!.re_escalation_after).toMatchObject({
      type: 'integer',
      minimum: 60,
      maximum: 604800,
      nullable: true,
    });
    expect(chain.properties!.repeats).toMatchObject({ type: 'integer', minimum: 0, maximum: 10 });
    expect(requestBody('post', `${CHAIN}/clone`).required).toBeUndefined();

    expect(requestBody('post', `${P}/on_call_rosters`).required).toEqual(['name']);
    expect(requestBody('post', `${ROSTER}/on_call_roster_members`)).toMatchObject({
      required: ['account_id'],
      properties: { account_id: { format: 'uuid' }, position: { type: 'integer', minimum: 0 } },
    });
    const contact = requestBody('post', `${ROSTER}/on_call_roster_phone_contacts`);
    expect(contact.required).toEqual(['label', 'phone_number']);
    expect(new RegExp(contact.properties!.phone_number.pattern!).test('+4930123456789')).toBe(true);
    expect(requestBody('post', `${ROSTER}/on_call_overrides`)).toMatchObject({
      required: ['account_id', 'starts_at', 'ends_at'],
      properties: { starts_at: { format: 'date-time' }, ends_at: { format: 'date-time' } },
    });
    for (const [method, path] of [
      ['patch', ROSTER],
      ['patch', CHAIN],
      ['patch', `${CHAIN}/escalation_steps/{step_id}`],
      ['patch', `${ROSTER}/on_call_roster_phone_contacts/{contact_id}`],
    ])
      expect(requestBody(method, path).required).toBeUndefined();
  });

  it('documents the window query parameters of shifts and overrides', () => {
    const query = (path: string) =>
      op('get', path)
        .parameters.filter((p) => p.in === 'query')
        .map((p) => [p.name, p.required, p.schema.format]);
    expect(query(`${ROSTER}/shifts`)).toEqual([
      ['from', true, 'date-time'],
      ['to', true, 'date-time'],
    ]);
    expect(query(`${ROSTER}/on_call_overrides`)).toEqual([
      ['from', false, 'date-time'],
      ['to', false, 'date-time'],
    ]);
  });

  it('names the success status and the data schema of each route', () => {
    for (const [method, path, status, model, list] of SUCCESSES) {
      const responses = op(method, path).responses;
      expect([method, path, Object.keys(responses).filter((s) => s < '400')]).toEqual([
        method,
        path,
        [status],
      ]);
      if (model === null) continue;
      const body = responses[status].content!['application/json'].schema;
      expect(body.required).toEqual(['metadata', 'data']);
      expect(body.properties!.metadata).toEqual({ $ref: '#/components/schemas/ResponseMetadata' });
      const ref = { $ref: `#/components/schemas/${model}` };
      expect([method, path, body.properties!.data]).toEqual([
        method,
        path,
        list ? { type: 'array', items: ref } : ref,
      ]);
    }
    for (const path of ['/alerts/phone_ack/{token}', '/alerts/sms_reply']) {
      const ok = op('post', path).responses['200'].content!;
      expect(Object.keys(ok)).toEqual(['text/xml']);
      expect(op('post', path).requestBody!.content).toHaveProperty(
        'application/x-www-form-urlencoded',
      );
    }
  });

  it('documents the formats, enums and null values of the roster schemas', () => {
    const field = (model: string, name: string) => schema(model).properties![name];
    expect(field('OnCallRoster', 'rotation')).toMatchObject({ nullable: true });
    expect(field('OnCallRotation', 'shift_length').enum).toEqual(['daily', 'weekly', 'hours']);
    expect(field('OnCallRotation', 'shift_hours')).toMatchObject({
      type: 'integer',
      nullable: true,
    });
    expect(field('OnCallRotation', 'start_date')).toMatchObject({ type: 'string', format: 'date' });
    expect(field('OnCallShift', 'source').enum).toEqual(['rotation', 'override']);
    for (const [model, name] of [
      ['OnCallRoster', 'created_at'],
      ['OnCallRosterPhoneContact', 'updated_at'],
      ['OnCallRotation', 'created_at'],
      ['OnCallOverride', 'starts_at'],
      ['OnCallShift', 'ends_at'],
    ])
      expect([model, name, field(model, name)]).toEqual([
        model,
        name,
        expect.objectContaining({ type: 'string', format: 'date-time' }),
      ]);
  });

  it('names the error codes of each route by status', () => {
    for (const [method, path] of projectOperations()) {
      const statuses = Object.keys(op(method, path).responses).filter((s) => s >= '400');
      expect(statuses).toEqual(expect.arrayContaining(['401', '403', '404']));
      expect(errorCodes(method, path, '401')).toEqual(['unauthorized']);
      expect(errorCodes(method, path, '403')).toEqual(
        expect.arrayContaining([
          'forbidden',
          'insufficient_scope',
          'static_token_cross_project',
          'alerts_capability_not_enabled',
        ]),
      );
      expect(errorCodes(method, path, '404')).toEqual(['not_found']);
      const takesInput =
        ['post', 'patch', 'put'].includes(method) &&
        !path.endsWith('/ack') &&
        !path.endsWith('/calendar_feed')
          ? true
          : path.endsWith('/shifts') || path.endsWith('/on_call_overrides');
      // Every route answers 422 to a NUL in its input; only those that take input name fields.
      // Creates take an Idempotency-Key, which a retry with another request reuses in vain.
      const keyedCreate = method === 'post' && '201' in op(method, path).responses;
      expect(errorCodes(method, path, '422')).toEqual(
        keyedCreate ? ['validation_failed', 'idempotency_key_reused'] : ['validation_failed'],
      );
      const invalidFields = /details\.fields/.test(op(method, path).responses['422'].description);
      expect([method, path, invalidFields]).toEqual([method, path, takesInput]);
      if (method !== 'get') expect(errorCodes(method, path, '403')).toContain('invalid_csrf_token');
    }
    for (const method of ['get', 'post']) {
      const link = '/alerts/ack/{signed_id}';
      expect(errorCodes(method, link, '401')).toEqual([
        'invalid_signed_token',
        'signed_link_expired',
      ]);
      expect(errorCodes(method, link, '403')).toEqual([
        'alerts_capability_not_enabled',
        'forbidden',
      ]);
      expect(errorCodes(method, link, '404')).toEqual(['not_found']);
      expect(errorCodes(method, link, '410')).toEqual(['link_superseded']);
    }
    expect(errorCodes('post', '/alerts/phone_ack/{token}', '401')).toEqual([
      'invalid_signed_token',
      'signed_link_expired',
    ]);
    for (const path of ['/alerts/phone_ack/{token}', '/alerts/sms_reply'])
      expect(errorCodes('post', path, '403')).toEqual([
        'invalid_webhook_signature',
        'alerts_capability_not_enabled',
      ]);
  });

  it('points every reference at a schema of the document', () => {
    const refs = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object')
        for (const [key, value] of Object.entries(node))
          if (key === '$ref') refs.add(value as string);
          else walk(value);
    };
    walk(doc);
    const missing = [...refs].filter((ref) => !schema(ref.replace('#/components/schemas/', '')));
    expect(missing).toEqual([]);
    expect(refs).toContain('#/components/schemas/ResolvedPhoneContact');
    expect(refs).toContain('#/components/schemas/PhoneContactAcknowledger');
  });

  describe('answers match the documented schemas', () => {
    it('for rosters, members, phone contacts, rotations, overrides and shifts', async () => {
      const ids: Record<string, string> = { project_id: projectId };
      ids.id = (await documented<Body>('post', `${P}/on_call_rosters`, ids, { name: 'Primary' }))
        .id as string;
      const member = await documented<Body>('post', `${ROSTER}/on_call_roster_members`, ids, {
        account_id: owner.accountId,
      });
      expect(member.account_id).toBe(owner.accountId);
      await documented('post', `${ROSTER}/on_call_roster_phone_contacts`, ids, {
        label: 'NOC hotline',
        phone_number: '+4930123456789',
      });
      await documented('put', `${ROSTER}/rotation`, ids, {
        time_zone: 'Europe/Berlin',
        start_date: '2000-01-03',
        handoff_time: '09:00',
        shift_length: 'daily',
      });
      const now = t.clock.now().getTime();
      const at = (hours: number) => new Date(now + hours * 3_600_000).toISOString();
      await documented('post', `${ROSTER}/on_call_overrides`, ids, {
        account_id: owner.accountId,
        starts_at: at(1),
        ends_at: at(3),
      });

      const shown = await documented<Body>('get', ROSTER, ids);
      expect([
        (shown.members as Body[]).length,
        (shown.phone_contacts as Body[]).length,
        shown.rotation === null,
      ]).toEqual([1, 1, false]);
      await documented('get', `${P}/on_call_rosters`, ids);
      await documented('get', `${ROSTER}/on_call_overrides`, ids);
      const window = `?from=${at(0)}&to=${at(48)}`;
      const shifts = await documented<Body[]>('get', `${ROSTER}/shifts${window}`, ids);
      expect(new Set(shifts.map((s) => s.source))).toEqual(new Set(['rotation', 'override']));
    });

    it('for chains, steps and resolved_targets', async () => {
      const ids: Record<string, string> = { project_id: projectId };
      const roster = await documented<Body>('post', `${P}/on_call_rosters`, ids, { name: 'R' });
      await documented(
        'post',
        `${ROSTER}/on_call_roster_phone_contacts`,
        { ...ids, id: roster.id as string },
        { label: 'Vendor', phone_number: '+4930123456780' },
      );
      const chain = await documented<Body>('post', `${P}/escalation_chains`, ids, {
        name: 'Database',
        re_escalation_after: 1800,
      });
      ids.id = chain.id as string;
      await documented('post', `${CHAIN}/escalation_steps`, ids, {
        target_type: 'member',
        target_member_id: owner.accountId,
        channels: ['in_app', 'email'],
      });
      await documented('post', `${CHAIN}/escalation_steps`, ids, {
        delay_seconds: 300,
        target_type: 'phone_contacts',
        target_roster_id: roster.id,
        channels: ['phone'],
      });
      const copy = await documented<Body>('post', `${CHAIN}/clone`, ids, {});
      expect((copy.steps as Body[]).length).toBe(2);
      const resolved = await documented<Array<{ recipients: Body[] }>>(
        'get',
        `${CHAIN}/resolved_targets`,
        ids,
      );
      expect(resolved.map((step) => step.recipients.map((r) => r.type))).toEqual([
        ['account'],
        ['phone_contact'],
      ]);
      await documented('get', `${P}/escalation_chains`, ids);
    });

    it('for the alert an acknowledgement answers', async () => {
      const now = t.clock.now();
      const [row] = await t.get(DataSource).query(
        `INSERT INTO alert (project_id, fingerprint, status, severity, labels, annotations, starts_at,
                            last_received_at, created_at, updated_at)
         VALUES ($1, 'fp-documented', 'firing', 'high', '{"alertname": "Disk"}',
                 '{"summary": "Disk full"}', $2, $2, $2, $2) RETURNING id`,
        [projectId, now],
      );
      const ids = { project_id: projectId, id: row.id as string };
      const acked = await documented<Body>('post', `${P}/alerts/{id}/ack`, ids);
      expect(acked.acknowledged_by).toEqual({ id: owner.accountId, name: expect.any(String) });
      const cleared = await documented<Body>('delete', `${P}/alerts/{id}/ack`, ids);
      expect([cleared.acknowledged, cleared.acknowledged_by]).toEqual([false, null]);
    });
  });
});
