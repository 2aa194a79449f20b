import { createServer, type Server } from 'node:net';
import { eventually } from '@platform/testing';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WEBHOOK_DELIVERY_POLICY, type WebhookDeliveryPolicy } from '@platform/alerting';
import { type HostResolver, OUTBOUND_RESOLVER } from '@platform/outbound';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import {
  addMember,
  bearer,
  createAccount,
  mintToken,
  type TestAccount,
} from '../support/identity.js';
import { WebhookReceiver } from './endpoints-receiver.js';

/** Quick retries, so a delivery settles within a test. */
const POLICY: WebhookDeliveryPolicy = {
  attempts: 3,
  backoffMs: 50,
  timeoutMs: 10_000,
  previousSecretGraceMs: 24 * 3_600_000,
};

/** A public address the scripted resolver hands out; nothing ever connects to it. */
const PUBLIC_ADDRESS = '93.184.215.14';

/**
 * A TCP server on 127.0.0.1 standing for an internal service (a metadata endpoint, an admin
 * port): it counts connections, so a test can show that none was made.
 */
async function internalService(): Promise<{
  port: number;
  connections: () => number;
  close: () => Promise<void>;
}> {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    // Reads what comes, so the peer's close ends the socket.
    socket.resume();
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 15\r\n\r\ninternal secret');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Attempt {
  attempt: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
}
interface Delivery {
  id: string;
  status: string;
  attempt_count: number;
  attempts: Attempt[];
}

/** Shared steps of both configurations. */
function endpointSteps(app: () => MailingTestApp, owner: () => TestAccount, project: () => string) {
  const base = () => `/projects/${project()}/notification_endpoints`;
  return {
    base,
    create: (body: Record<string, unknown>) =>
      app().request().post(base()).set(bearer(owner().jwt)).send(body),
    deliveries: async (id: string, jwt = owner().jwt) =>
      (await app().request().get(`${base()}/${id}/deliveries`).set(bearer(jwt)).expect(200)).body
        .data as Delivery[],
    /** Sends a test ping and waits until its delivery is no longer pending. */
    ping: async (id: string): Promise<Delivery> => {
      await app().request().post(`${base()}/${id}/test`).set(bearer(owner().jwt)).expect(202);
      return eventually(async () => {
        const [delivery] = (
          await app().request().get(`${base()}/${id}/deliveries`).set(bearer(owner().jwt))
        ).body.data as Delivery[];
        return delivery && delivery.status !== 'pending' ? delivery : undefined;
      }, 'the test ping to settle');
    },
  };
}

describe('notification endpoints: outbound address rules (OUTBOUND_ALLOW_PRIVATE_NETWORKS=false)', () => {
  let t: MailingTestApp;
  let owner: TestAccount;
  let projectId: string;
  let internal: Awaited<ReturnType<typeof internalService>>;
  /** What the scripted resolver answers, by name; other names do not resolve. */
  const dns = new Map<string, string[]>();
  const lookups: string[] = [];
  const resolve: HostResolver = async (hostname) => {
    lookups.push(hostname);
    const addresses = dns.get(hostname);
    if (!addresses) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const steps = endpointSteps(
    () => t,
    () => owner,
    () => projectId,
  );
  const storedEndpoints = async () =>
    (
      await t
        .get(DataSource)
        .query<Array<{ url: string }>>(
          'SELECT url FROM notification_endpoint WHERE project_id = $1 ORDER BY created_at',
          [projectId],
        )
    ).map((row) => row.url);

  beforeAll(async () => {
    internal = await internalService();
    t = await createMailingApiTestApp({
      config: { outboundAllowPrivateNetworks: false },
      override: (builder) =>
        builder
          .overrideProvider(WEBHOOK_DELIVERY_POLICY)
          .useValue(POLICY)
          .overrideProvider(OUTBOUND_RESOLVER)
          .useValue(resolve),
    });
    owner = await createAccount(t, t.sink, 'owner@outbound.example');
    projectId = await alertsProject(t, owner);
    dns.set('loopback.test', ['127.0.0.1']);
    dns.set('metadata.test', ['169.254.169.254']);
    dns.set('split.test', [PUBLIC_ADDRESS, '10.1.2.3']);
    dns.set('v6.test', ['2606:4700:4700::1111', '::1']);
    dns.set('public.test', [PUBLIC_ADDRESS]);
  });

  afterAll(async () => {
    await t?.close();
    await internal?.close();
  });

  it('answers 422 url_not_allowed for every spelling of a refused address and stores nothing', async () => {
    const port = internal.port;
    const cases: Array<[string, string]> = [
      [`http://127.0.0.1:${port}/hook`, 'url names a loopback address'],
      [`http://localhost:${port}/hook`, 'url names the local host'],
      [`http://LocalHost.:${port}/hook`, 'url names the local host'],
      [`http://2130706433:${port}/hook`, 'url names a loopback address'],
      [`http://0x7f000001:${port}/hook`, 'url names a loopback address'],
      [`http://0177.0.0.1:${port}/hook`, 'url names a loopback address'],
      [`http://127.1:${port}/hook`, 'url names a loopback address'],
      [`http://[::ffff:127.0.0.1]:${port}/hook`, 'url names a loopback address'],
      [`http://[::1]:${port}/hook`, 'url names a loopback address'],
      [`http://[64:ff9b::127.0.0.1]:${port}/hook`, 'url names a loopback address'],
      [`http://0.0.0.0:${port}/hook`, 'url names an unspecified address'],
      ['http://169.254.169.254/latest/meta-data/', 'url names a link-local address'],
      ['http://[::ffff:169.254.169.254]/latest/meta-data/', 'url names a link-local address'],
      ['https://10.0.0.5/hook', 'url names a private address'],
      ['https://192.168.1.10/hook', 'url names a private address'],
      ['https://[fd00::10]/hook', 'url names a private address'],
      ['https://100.64.0.1/hook', 'url names a shared (carrier-grade NAT) address'],
      [`http://loopback.test:${port}/hook`, 'url resolves to a loopback address'],
      ['http://metadata.test/latest/meta-data/', 'url resolves to a link-local address'],
      ['https://split.test/hook', 'url resolves to a private address'],
      ['https://v6.test/hook', 'url resolves to a loopback address'],
    ];
    for (const [url, reason] of cases) {
      const res = await steps.create({ name: 'attack', url });
      expect({ url, status: res.status, body: res.body }).toEqual({
        url,
        status: 422,
        body: expect.objectContaining({
          code: 'url_not_allowed',
          message: reason,
          source_service: 'alerting',
          details: { fields: [{ field: 'url', messages: [reason] }] },
        }),
      });
    }
    expect(await storedEndpoints()).toEqual([]);
    expect(internal.connections()).toBe(0);
  });

  it('accepts a name that resolves to public addresses only, asking the resolver', async () => {
    const res = await steps.create({ name: 'public', url: 'https://public.test/hook' }).expect(201);
    expect(res.body.data.url).toBe('https://public.test/hook');
    expect(lookups).toContain('public.test');
  });

  it('refuses a PATCH to a refused URL with 422 and changes nothing', async () => {
    const created = await steps
      .create({ name: 'Stable', url: 'https://public.test/stable' })
      .expect(201);
    const id = created.body.data.id as string;
    for (const url of ['http://169.254.169.254/', 'http://loopback.test/', 'http://[::1]/']) {
      const res = await t
        .request()
        .patch(`${steps.base()}/${id}`)
        .set(bearer(owner.jwt))
        .send({ name: 'Moved', url })
        .expect(422);
      expect(res.body.code).toBe('url_not_allowed');
      expect(res.body.details.fields[0].field).toBe('url');
    }
    const shown = await t.request().get(`${steps.base()}/${id}`).set(bearer(owner.jwt)).expect(200);
    expect(shown.body.data).toMatchObject({
      name: 'Stable',
      url: 'https://public.test/stable',
      updated_at: created.body.data.updated_at,
    });
  });

  it('DNS rebinding: a name public at create and 127.0.0.1 at send fails the attempt without connecting', async () => {
    dns.set('rebind.test', [PUBLIC_ADDRESS]);
    const url = `http://rebind.test:${internal.port}/hooks/alerts`;
    const created = await steps.create({ name: 'rebinding', url }).expect(201);
    dns.set('rebind.test', ['127.0.0.1']);

    const delivery = await steps.ping(created.body.data.id as string);
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 1 });
    expect(delivery.attempts).toEqual([
      {
        attempt: 1,
        started_at: expect.any(String),
        response_status: null,
        response_body: null,
        error: 'url resolves to a loopback address; no request made',
        duration_ms: expect.any(Number),
      },
    ]);
    expect(internal.connections()).toBe(0);
  });

  it('refuses at send time an address stored before the rule existed', async () => {
    const [row] = await t.get(DataSource).query<Array<{ id: string }>>(
      `INSERT INTO notification_endpoint (project_id, name, url, enabled, events, secret, created_at, updated_at)
       VALUES ($1, 'legacy', $2, true, '{alert_firing,alert_resolved}', 'whsec_bGVnYWN5', now(), now())
       RETURNING id`,
      [projectId, `http://2130706433:${internal.port}/hook`],
    );
    const delivery = await steps.ping(row.id);
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 1 });
    expect(delivery.attempts[0]).toMatchObject({
      response_status: null,
      error: 'url names a loopback address; no request made',
    });
    expect(internal.connections()).toBe(0);
  });
});

describe('notification endpoints: answers of receivers (OUTBOUND_ALLOW_PRIVATE_NETWORKS=true)', () => {
  let t: MailingTestApp;
  let receiver: WebhookReceiver;
  let internal: Awaited<ReturnType<typeof internalService>>;
  let owner: TestAccount;
  let projectId: string;
  const steps = endpointSteps(
    () => t,
    () => owner,
    () => projectId,
  );
  const storedBodies = async (deliveryId: string) =>
    (
      await t
        .get(DataSource)
        .query<Array<{ response_body: string | null }>>(
          'SELECT response_body FROM delivery_attempt WHERE delivery_id = $1 ORDER BY attempt',
          [deliveryId],
        )
    ).map((row) => row.response_body);
  const hook = async () => {
    const res = await steps.create({ name: 'local', url: receiver.url() }).expect(201);
    receiver.secrets.push(res.body.data.secret as string);
    return res.body.data.id as string;
  };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    internal = await internalService();
    t = await createMailingApiTestApp({
      config: { outboundAllowPrivateNetworks: true },
      override: (builder) => builder.overrideProvider(WEBHOOK_DELIVERY_POLICY).useValue(POLICY),
    });
    owner = await createAccount(t, t.sink, 'owner@receivers.example');
    projectId = await alertsProject(t, owner);
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await internal?.close();
  });

  it('delivers to a local receiver as before, keeping no excerpt of a success', async () => {
    const id = await hook();
    const delivery = await steps.ping(id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    expect(receiver.byId(delivery.id).map((r) => [r.status, r.verifiedBy.length])).toEqual([
      [200, 1],
    ]);
    expect(await storedBodies(delivery.id)).toEqual([null]);
  });

  it('does not follow a redirect to an internal address', async () => {
    const id = await hook();
    const target = `http://127.0.0.1:${internal.port}/latest/meta-data/`;
    receiver.answer({ status: 302, location: target, body: 'see other' });
    const delivery = await steps.ping(id);
    expect(delivery.status).toBe('succeeded');
    expect(delivery.attempts.map((a) => [a.response_status, a.response_body, a.error])).toEqual([
      [302, 'see other', `redirect to ${target} not followed`],
      [200, null, null],
    ]);
    expect(internal.connections()).toBe(0);
  });

  it('cuts an oversized answer to a 1024-character excerpt', async () => {
    const id = await hook();
    receiver.answer(
      { status: 500, body: `${'a'.repeat(1024)}${'b'.repeat(500_000)}` },
      { status: 500, body: '\u0000é'.repeat(2000) },
      { status: 500, body: '' },
    );
    const delivery = await steps.ping(id);
    expect(delivery.status).toBe('failed');
    expect(delivery.attempts.map((a) => a.response_body)).toEqual([
      'a'.repeat(1024),
      'é'.repeat(512),
      null,
    ]);
    expect(await storedBodies(delivery.id)).toEqual(delivery.attempts.map((a) => a.response_body));
  });

  it('shows excerpts only to those who may edit the endpoint', async () => {
    const viewer = await addMember(t, t.sink, owner, 'viewer@receivers.example', 'viewer');
    const operator = await addMember(t, t.sink, owner, 'operator@receivers.example', 'operator');
    const id = await hook();
    receiver.answer(
      { status: 500, body: 'stack trace of the receiver' },
      { status: 500, body: 'stack trace of the receiver' },
      { status: 500, body: 'stack trace of the receiver' },
    );
    const delivery = await steps.ping(id);
    expect(delivery.status).toBe('failed');
    const excerpts = async (jwt: string) =>
      (await steps.deliveries(id, jwt))[0].attempts.map((a) => a.response_body);
    const shown = [
      'stack trace of the receiver',
      'stack trace of the receiver',
      'stack trace of the receiver',
    ];
    const hidden = [null, null, null];

    expect(await excerpts(owner.jwt)).toEqual(shown);
    expect(await excerpts(operator.jwt)).toEqual(shown);
    expect(await excerpts(viewer.jwt)).toEqual(hidden);
    expect(await excerpts(await mintToken(t, owner.jwt, ['notification_endpoints:write']))).toEqual(
      shown,
    );
    expect(await excerpts(await mintToken(t, owner.jwt, ['notification_endpoints:read']))).toEqual(
      hidden,
    );
    // The owner's write scope on the token does not lift a viewer's read-only role.
    expect(
      await excerpts(await mintToken(t, viewer.jwt, ['notification_endpoints:write'])),
    ).toEqual(hidden);
    // Everything else of the list stays visible to a viewer.
    const [seen] = await steps.deliveries(id, viewer.jwt);
    expect(seen.attempts.map((a) => [a.response_status, a.error])).toEqual([
      [500, 'receiver answered 500'],
      [500, 'receiver answered 500'],
      [500, 'receiver answered 500'],
    ]);
  });
});
