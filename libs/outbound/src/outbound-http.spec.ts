import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HOOKS_TEST_TLS } from '@platform/testing';
import type { HostResolver, ResolvedAddress } from './host-resolver.js';
import { OutboundHttp, OutboundTimeoutError, UrlNotAllowedError } from './outbound-http.js';

/** A resolver answering from a table, counting lookups; unknown names do not resolve. */
function scriptedResolver(table: Record<string, string[]>) {
  const lookups: string[] = [];
  const resolve: HostResolver = async (hostname) => {
    lookups.push(hostname);
    const addresses = table[hostname];
    if (!addresses)
      throw Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address): ResolvedAddress => ({
      address,
      family: address.includes(':') ? 6 : 4,
    }));
  };
  return { resolve, lookups };
}

interface Seen {
  method: string;
  url: string;
  host: string | undefined;
  body: string;
  servername?: string | false | null;
}

/** Starts `server` on 127.0.0.1. */
async function listen(server: Server): Promise<{ port: number; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function record(seen: Seen[], req: IncomingMessage, body: string): void {
  seen.push({
    method: req.method ?? '',
    url: req.url ?? '',
    host: req.headers.host,
    body,
    servername: (req.socket as TLSSocket).servername,
  });
}

describe('OutboundHttp: the address rules on every spelling of a URL', () => {
  const { resolve, lookups } = scriptedResolver({
    'hooks.test': ['127.0.0.1'],
    'internal.test': ['10.20.30.40'],
    'metadata.test': ['169.254.169.254'],
    'mixed.test': ['93.184.215.14', '192.168.0.10'],
    'v6-loopback.test': ['::1'],
    'public.test': ['93.184.215.14', '2606:4700:4700::1111'],
  });
  const strict = new OutboundHttp({ allowPrivateNetworks: false, resolve });
  const open = new OutboundHttp({ allowPrivateNetworks: true, resolve });

  it.each([
    ['http://127.0.0.1:8080/hook', 'url names a loopback address'],
    ['http://2130706433/', 'url names a loopback address'],
    ['http://0x7f000001/', 'url names a loopback address'],
    ['http://017700000001/', 'url names a loopback address'],
    ['http://0177.0.0.1/', 'url names a loopback address'],
    ['http://0x7f.1/', 'url names a loopback address'],
    ['http://127.1/', 'url names a loopback address'],
    ['http://127.0.0.1./', 'url names a loopback address'],
    ['http://%31%32%37.0.0.1/', 'url names a loopback address'],
    ['http://[::1]:9443/x', 'url names a loopback address'],
    ['http://[::ffff:127.0.0.1]/', 'url names a loopback address'],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', 'url names a loopback address'],
    ['http://[::ffff:0:127.0.0.1]/', 'url names a loopback address'],
    ['http://[64:ff9b::127.0.0.1]/', 'url names a loopback address'],
    ['http://[2002:7f00:1::1]/', 'url names a loopback address'],
    ['http://[::127.0.0.1]/', 'url names a reserved address'],
    ['http://0.0.0.0/', 'url names an unspecified address'],
    ['http://0/', 'url names an unspecified address'],
    ['http://[::]/', 'url names an unspecified address'],
    ['http://169.254.169.254/latest/meta-data/', 'url names a link-local address'],
    ['http://[::ffff:a9fe:a9fe]/', 'url names a link-local address'],
    ['http://[fe80::1]/', 'url names a link-local address'],
    ['https://10.0.0.5:8443/hook', 'url names a private address'],
    ['http://172.16.3.4/', 'url names a private address'],
    ['http://192.168.1.1/', 'url names a private address'],
    ['http://[fd00::5]/', 'url names a private address'],
    ['http://100.64.1.1/', 'url names a shared (carrier-grade NAT) address'],
    ['http://224.0.0.251/', 'url names a multicast address'],
    ['http://[ff02::1]/', 'url names a multicast address'],
    ['http://255.255.255.255/', 'url names a broadcast address'],
    ['http://192.0.2.10/', 'url names a reserved address'],
    ['http://[2001:db8::1]/', 'url names a reserved address'],
    ['http://localhost:3000/', 'url names the local host'],
    ['http://LOCALHOST./', 'url names the local host'],
    ['http://api.localhost/', 'url names the local host'],
    ['https://hooks.test/alerts', 'url resolves to a loopback address'],
    ['https://internal.test/', 'url resolves to a private address'],
    ['https://metadata.test/', 'url resolves to a link-local address'],
    ['https://mixed.test/', 'url resolves to a private address'],
    ['https://v6-loopback.test/', 'url resolves to a loopback address'],
    ['ftp://hooks.example.com/', 'url must use the http or https scheme'],
    ['file:///etc/passwd', 'url must use the http or https scheme'],
    [
      'https://user:pw@hooks.example.com/',
      'url must not contain credentials; authenticate receivers by the signature',
    ],
    [
      'https://token@hooks.example.com/',
      'url must not contain credentials; authenticate receivers by the signature',
    ],
    ['hooks.example.com/alerts', 'url must be an absolute http or https URL'],
  ])('refuses %s: %s', async (url, reason) => {
    expect(await strict.refusal(url)).toBe(reason);
  });

  it.each([
    'https://public.test/hook',
    'http://93.184.215.14/',
    'http://[2606:4700:4700::1111]/',
    'http://[::ffff:8.8.8.8]/',
  ])('lets %s through', async (url) => {
    expect(await strict.refusal(url)).toBeNull();
  });

  it('lets a name through that does not resolve yet: the check at send time decides', async () => {
    expect(await strict.refusal('https://not-yet.test/hook')).toBeNull();
    expect(lookups).toContain('not-yet.test');
  });

  it('lifts the address rules with allowPrivateNetworks, but not the URL rules', async () => {
    expect(await open.refusal('http://127.0.0.1:8080/hook')).toBeNull();
    expect(await open.refusal('http://localhost/')).toBeNull();
    expect(await open.refusal('https://internal.test/')).toBeNull();
    expect(await open.refusal('ftp://127.0.0.1/')).toBe('url must use the http or https scheme');
  });
});

describe('OutboundHttp: requests', () => {
  const seen: Seen[] = [];
  let answer: (req: IncomingMessage, res: ServerResponse) => void;
  let server: { port: number; close: () => Promise<void> };
  let tls: { port: number; close: () => Promise<void> };

  beforeAll(async () => {
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        record(seen, req, Buffer.concat(chunks).toString());
        answer(req, res);
      });
    };
    server = await listen(createHttpServer(handler));
    tls = await listen(
      createHttpsServer({ cert: HOOKS_TEST_TLS.certificate, key: HOOKS_TEST_TLS.key }, handler),
    );
  });

  afterAll(async () => {
    await server?.close();
    await tls?.close();
  });

  type Answer = (req: IncomingMessage, res: ServerResponse) => void;
  const reset = (respond: Answer = (_req, res) => res.end('ok')) => {
    seen.length = 0;
    answer = respond;
  };

  it('connects to the vetted address, keeping the Host header, with one lookup', async () => {
    reset();
    const { resolve, lookups } = scriptedResolver({ 'hooks.test': ['127.0.0.1'] });
    const client = new OutboundHttp({ allowPrivateNetworks: true, resolve });
    const response = await client.request({
      url: `http://hooks.test:${server.port}/alerts?team=db`,
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
      timeoutMs: 5_000,
    });
    expect(response).toMatchObject({ status: 200, truncated: false });
    expect(response.body.toString()).toBe('ok');
    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/alerts?team=db',
        host: `hooks.test:${server.port}`,
        body: '{"a":1}',
        servername: undefined,
      },
    ]);
    // The system resolver does not know hooks.test: only the pinned address was used.
    expect(lookups).toEqual(['hooks.test']);
  });

  it('sends nothing to a refused address', async () => {
    reset();
    const client = new OutboundHttp({ allowPrivateNetworks: false });
    await expect(
      client.request({ url: `http://127.0.0.1:${server.port}/`, body: 'x', timeoutMs: 5_000 }),
    ).rejects.toEqual(new UrlNotAllowedError('url names a loopback address'));
    await expect(
      client.request({ url: `http://localhost:${server.port}/`, body: 'x', timeoutMs: 5_000 }),
    ).rejects.toThrow('url names the local host; no request made');
    expect(seen).toEqual([]);
  });

  it('refuses a name when any of its addresses is refused, before connecting', async () => {
    reset();
    const { resolve } = scriptedResolver({ 'split.test': ['93.184.215.14', '127.0.0.1'] });
    const client = new OutboundHttp({ allowPrivateNetworks: false, resolve });
    await expect(
      client.request({ url: `http://split.test:${server.port}/`, timeoutMs: 5_000 }),
    ).rejects.toBeInstanceOf(UrlNotAllowedError);
    expect(seen).toEqual([]);
  });

  it('answers a redirect as it is, without following it', async () => {
    reset((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${server.port}/elsewhere` });
      res.end('moved');
    });
    const client = new OutboundHttp({ allowPrivateNetworks: true });
    const response = await client.request({
      url: `http://127.0.0.1:${server.port}/hook`,
      timeoutMs: 5_000,
    });
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe(`http://127.0.0.1:${server.port}/elsewhere`);
    expect(seen.map((s) => s.url)).toEqual(['/hook']);
  });

  it('reads at most maxResponseBytes of a large answer and marks it truncated', async () => {
    reset((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('x'.repeat(1_000_000));
    });
    const client = new OutboundHttp({ allowPrivateNetworks: true });
    const response = await client.request({
      url: `http://127.0.0.1:${server.port}/big`,
      timeoutMs: 5_000,
      maxResponseBytes: 4_096,
    });
    expect(response.status).toBe(500);
    expect(response.body).toHaveLength(4_096);
    expect(response.truncated).toBe(true);

    const whole = await client.request({
      url: `http://127.0.0.1:${server.port}/big`,
      timeoutMs: 5_000,
    });
    expect(whole.body).toHaveLength(64 * 1024);
    expect(whole.truncated).toBe(true);
  });

  it('gives up at the deadline when no answer comes', async () => {
    reset(() => undefined);
    const client = new OutboundHttp({ allowPrivateNetworks: true });
    await expect(
      client.request({ url: `http://127.0.0.1:${server.port}/slow`, timeoutMs: 200 }),
    ).rejects.toEqual(new OutboundTimeoutError(200));
  });

  it('counts the lookup in the deadline', async () => {
    reset();
    const client = new OutboundHttp({
      allowPrivateNetworks: true,
      resolve: () => new Promise<ResolvedAddress[]>(() => undefined),
    });
    await expect(
      client.request({ url: `http://stuck.test:${server.port}/`, timeoutMs: 200 }),
    ).rejects.toBeInstanceOf(OutboundTimeoutError);
    expect(seen).toEqual([]);
  });

  it("stops at the caller's signal", async () => {
    reset(() => undefined);
    const client = new OutboundHttp({ allowPrivateNetworks: true });
    const stop = new AbortController();
    const pending = client.request({
      url: `http://127.0.0.1:${server.port}/`,
      timeoutMs: 10_000,
      signal: stop.signal,
    });
    setTimeout(() => stop.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('checks TLS against the host name while connecting to the pinned address', async () => {
    reset();
    const { resolve } = scriptedResolver({
      'hooks.test': ['127.0.0.1'],
      'other.test': ['127.0.0.1'],
    });
    const client = new OutboundHttp({
      allowPrivateNetworks: true,
      resolve,
      ca: HOOKS_TEST_TLS.certificate,
    });
    const response = await client.request({
      url: `https://hooks.test:${tls.port}/tls`,
      timeoutMs: 5_000,
    });
    expect(response.status).toBe(200);
    expect(seen).toMatchObject([
      { url: '/tls', host: `hooks.test:${tls.port}`, servername: 'hooks.test' },
    ]);

    // The same server under a name its certificate does not carry.
    await expect(
      client.request({ url: `https://other.test:${tls.port}/tls`, timeoutMs: 5_000 }),
    ).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    // Without trusting the test certificate, the system's roots refuse it.
    const system = new OutboundHttp({ allowPrivateNetworks: true, resolve });
    await expect(
      system.request({ url: `https://hooks.test:${tls.port}/tls`, timeoutMs: 5_000 }),
    ).rejects.toMatchObject({ code: expect.stringMatching(/SELF_SIGNED/) });
    expect(seen).toHaveLength(1);
  });
});
