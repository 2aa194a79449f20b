import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Server } from 'node:http';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { operationId } from '@platform/core';
import { type AccessPolicy, declaredRoutes } from '@platform/identity';
import { FakeOpenStack, FakeRgw, FakeTwilio } from '@platform/testing';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import {
  createFuzzFixtures,
  type FuzzFixtures,
  ingestPayload,
  PLATFORM_ADMIN,
} from './fuzz-fixtures.js';
import { type FuzzOperation, type FuzzRequest, RequestFactory } from './fuzz-requests.js';
import {
  type Json,
  propertyNames,
  Random,
  resolve,
  type Schema,
  seedValue,
} from './fuzz-values.js';

/** Spread over the operations (about 80 each for 128), so the run grows no longer with the API. */
const TOTAL_REQUESTS = 10_000;
const CONCURRENCY = 8;
const SEED = 20_261_122;

/**
 * 5xx answers the spec asks for: ingest answers 502 `nothing_processed` when every alert of a
 * payload failed (each one's error is in the envelope), which a fuzzed alert list often is.
 */
const SPECIFIED_5XX = new Set(['alertIngest.ingest 502 nothing_processed']);

/**
 * The areas whose provider is a Kubernetes cluster this fuzz does not stand up (the garden and
 * the apps cluster): a request that passes every input check reaches the provider and answers
 * its documented 503 `provider_not_configured`; bad input never gets that far.
 */
const UNCONFIGURED_PROVIDER = /^(clusters|cloudProfiles|apps|workspaces|webhookReceive)\./i;

/** Bodies the schema cannot describe well enough to be accepted. */
const SEEDS: Record<string, Json> = { 'alertIngest.ingest': ingestPayload('fuzz-seed') };

/** Query strings that a real call needs. */
const QUERIES: Record<string, string> = {
  'rosters.shifts': 'from=2030-01-01T00:00:00Z&to=2030-01-08T00:00:00Z',
  'rosterOverrides.list': 'from=2030-01-01T00:00:00Z&to=2030-01-08T00:00:00Z',
  'insights.show': 'days=30',
};

/** Operations that would end the session the fuzz uses: they get the static token instead. */
const ENDS_SESSION = /\/logout$|\/accounts\/me\/password$/;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

interface Document {
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        parameters?: Array<{ name: string; in: string }>;
        requestBody?: { content: Record<string, { schema: Schema }> };
      }
    >
  >;
  components: { schemas: Record<string, Schema> };
}

interface Outcome {
  request: FuzzRequest;
  operation: string;
  status: number;
  body: unknown;
  /** The answer was a page for a person (the e-mail links' GET routes), not JSON. */
  html?: boolean;
}

describe('OpenAPI-driven fuzz: bad input never answers 5xx', () => {
  let t: MailingTestApp;
  let twilio: FakeTwilio;
  let openstack: FakeOpenStack;
  let rgw: FakeRgw;
  let fixtures: FuzzFixtures;
  let operations: FuzzOperation[];
  const credentials = new Map<string, string | undefined>();

  beforeAll(async () => {
    // A phone provider, so the phone routes get as far as their input instead of answering 503.
    twilio = await FakeTwilio.start({ accountSid: 'AC_fuzz', authToken: 'fuzz' });
    // The cloud providers too, so the cloud routes take well-formed requests upstream.
    openstack = await FakeOpenStack.start();
    rgw = await FakeRgw.start();
    t = await createMailingApiTestApp({
      listen: true,
      config: {
        platformAdmin: PLATFORM_ADMIN,
        openstack: openstack.config(),
        rgw: rgw.config(),
        phone: {
          apiUrl: twilio.url,
          accountSid: 'AC_fuzz',
          authToken: 'fuzz',
          from: '+15550000000',
        },
      },
    });
    // Client and server share this process's event loop: on a busy machine a pause longer than
    // the keep-alive timeout would let the server close a connection the client is reusing.
    (t.app.getHttpServer() as Server).keepAliveTimeout = 0;
    fixtures = await createFuzzFixtures(t);
    const document = (await t.request().get('/openapi.json').expect(200)).body as Document;
    operations = fuzzOperations(document, fixtures);
    const policies = new Map(
      declaredRoutes(t.get(DiscoveryService), t.get(MetadataScanner), t.get(Reflector)).map(
        (route) => [
          operationId({ name: route.controller }, { name: route.handler }),
          route.isPublic ? undefined : (route.policy as AccessPolicy),
        ],
      ),
    );
    for (const operation of operations) {
      const policy = policies.get(operation.id);
      const credential = !policy
        ? undefined
        : policy.platformAdmin
          ? fixtures.adminJwt
          : policy.interactiveOnly && !ENDS_SESSION.test(operation.template)
            ? fixtures.ownerJwt
            : fixtures.token;
      credentials.set(operation.id, credential);
    }
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await twilio?.close();
    await openstack?.close();
    await rgw?.close();
  }, 60_000);

  // About 25 s of CPU on a quiet machine; the timeouts leave room for a busy one.
  it('walks every operation with malformed paths, queries, bodies and transports', async () => {
    const random = new Random(SEED);
    const perOperation = Math.ceil(TOTAL_REQUESTS / operations.length);
    const planned: Array<{ operation: FuzzOperation; request: FuzzRequest }> = [];
    for (const operation of operations) {
      const factory = new RequestFactory(operation, random);
      const requests = factory.fixed().slice(0, perOperation);
      while (requests.length < perOperation) requests.push(factory.randomized());
      planned.push(...requests.map((request) => ({ operation, request })));
    }

    const started = Date.now();
    const cpu = process.cpuUsage();
    const outcomes: Outcome[] = [];
    let next = 0;
    const worker = async () => {
      while (next < planned.length) {
        const { operation, request } = planned[next++];
        outcomes.push(await send(operation, request));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (Date.now() - started) / 1000;
    const cpuUsed = process.cpuUsage(cpu);
    const cpuSeconds = (cpuUsed.user + cpuUsed.system) / 1e6;

    const byStatus = new Map<number, number>();
    for (const { status } of outcomes) byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    console.log(
      `fuzz: ${outcomes.length} requests to ${operations.length} operations in ${seconds.toFixed(1)} s (${cpuSeconds.toFixed(1)} s CPU, server and client); ` +
        [...byStatus]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s}×${n}`)
          .join(' '),
    );

    const serverErrors = outcomes.filter(
      (o) =>
        o.status >= 500 &&
        !SPECIFIED_5XX.has(`${o.operation} ${o.status} ${String(codeOf(o.body))}`) &&
        !(
          o.status === 503 &&
          codeOf(o.body) === 'provider_not_configured' &&
          UNCONFIGURED_PROVIDER.test(o.operation)
        ),
    );
    // The pages that e-mail links open answer a person in HTML, errors included.
    const withoutEnvelope = outcomes.filter(
      (o) => o.status >= 400 && !o.html && !isErrorEnvelope(o.body),
    );
    expect(outcomes.length).toBeGreaterThanOrEqual(TOTAL_REQUESTS);
    expect(outcomes.filter((o) => o.status === 0).map(report)).toEqual([]);
    expect(serverErrors.map(report)).toEqual([]);
    expect(withoutEnvelope.map(report)).toEqual([]);
  }, 480_000);

  async function send(operation: FuzzOperation, request: FuzzRequest): Promise<Outcome> {
    const credential = credentials.get(operation.id);
    const headers = { ...request.headers };
    if (credential) headers.authorization = `Bearer ${credential}`;
    let response: Response;
    try {
      response = await fetch(`${t.baseUrl}${request.url}`, {
        method: request.method,
        headers,
        body: request.body,
      });
    } catch (error) {
      // No answer at all (the connection closed): reported with the request that caused it.
      const cause = (error as { cause?: unknown }).cause;
      return { request, operation: operation.id, status: 0, body: `no answer: ${String(cause)}` };
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Kept as text: the report shows what came back instead of an envelope.
    }
    const html = (response.headers.get('content-type') ?? '').startsWith('text/html');
    return { request, operation: operation.id, status: response.status, body, html };
  }
});

function codeOf(body: unknown): unknown {
  return (body as { code?: unknown } | null)?.code;
}

function isErrorEnvelope(body: unknown): boolean {
  const envelope = body as { code?: unknown; message?: unknown; request_id?: unknown } | null;
  return (
    typeof envelope?.code === 'string' &&
    typeof envelope.message === 'string' &&
    typeof envelope.request_id === 'string' &&
    envelope.request_id !== ''
  );
}

function report({ request, status, body }: Outcome): string {
  const sample = request.body?.subarray(0, 160).toString('utf8').replaceAll('\u0000', '\\0');
  return [
    `${status} ${request.method} ${request.url.slice(0, 160)}`,
    `  ${request.label}`,
    `  headers ${JSON.stringify(request.headers)} body ${sample ?? '(none)'}`,
    `  answer ${JSON.stringify(body).slice(0, 200)}`,
  ].join('\n');
}

/** Every operation of the document, with the real ids and the well-formed body to start from. */
function fuzzOperations(document: Document, fixtures: FuzzFixtures): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = operation.parameters ?? [];
      const pathParams = parameters.filter((p) => p.in === 'path').map((p) => p.name);
      const content = operation.requestBody?.content ?? {};
      const form = content['application/x-www-form-urlencoded'];
      const schema = (content['application/json'] ?? form)?.schema;
      const deleting = method === 'delete';
      const components = document.components.schemas;
      operations.push({
        id: operation.operationId,
        method: method.toUpperCase(),
        template,
        pathParams,
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        bodyKind: schema ? (form ? 'form' : 'json') : undefined,
        seed:
          SEEDS[operation.operationId] ??
          (schema && resolve(schema, components).type !== 'string'
            ? seedValue(schema, components, fixtures.named)
            : undefined),
        properties: propertyNames(schema, components),
        query: QUERIES[operation.operationId] ?? '',
        realParams: Object.fromEntries(
          pathParams.map((name) => [name, realParam(template, name, fixtures, deleting)]),
        ),
      });
    }
  }
  return operations;
}

/**
 * The real value of a path parameter. A DELETE gets an unknown id for what it deletes, so the
 * fixtures survive the run (the organization and project stay real: they are not deleted).
 */
function realParam(
  template: string,
  name: string,
  fixtures: FuzzFixtures,
  deleting: boolean,
): string {
  const unknown = '00000000-0000-4000-8000-00000000dead';
  if (name === 'id') {
    const collection = /\/([^/]+)\/\{id\}/.exec(template)?.[1] ?? '';
    return deleting ? unknown : (fixtures.ids[collection] ?? unknown);
  }
  if (deleting && name.endsWith('_id') && name !== 'org_id' && name !== 'project_id')
    return unknown;
  return fixtures.params[name] ?? 'fuzz';
}
