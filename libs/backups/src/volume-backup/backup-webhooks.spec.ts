import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreKinds, KubeApiError, type KubeClient } from '@platform/kube';
import { type HostResolver, OutboundHttp } from '@platform/outbound';
import { Webhook } from 'standardwebhooks';
import type { WebhookDeliveryStatus } from '../api/types.js';
import { BackupWebhookNotifier, readWebhookSecret } from './backup-webhooks.js';

const SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;

const DELIVERY: WebhookDeliveryStatus = {
  id: 'msg_0123456789abcdef0123456789abcdef',
  event: 'backup.succeeded',
  url: '',
  job: 'app-backup-1',
  state: 'Pending',
  attempts: 0,
  createdAt: '2024-05-03T06:00:00.000Z',
  payload: JSON.stringify({ event: 'backup.succeeded', job: 'app-backup-1' }),
};

describe('BackupWebhookNotifier', () => {
  let server: Server;
  let port: number;
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('signs each attempt as Standard Webhooks with the delivery id', async () => {
    const notifier = new BackupWebhookNotifier(new OutboundHttp({ allowPrivateNetworks: true }), {
      timeoutMs: 2_000,
    });
    const url = `http://127.0.0.1:${port}/hook`;
    expect(await notifier.attempt({ ...DELIVERY, url }, SECRET)).toEqual({
      ok: true,
      refused: false,
      status: 204,
      error: null,
    });
    const [got] = received.splice(0);
    expect(got.body).toBe(DELIVERY.payload);
    expect(got.headers['webhook-id']).toBe(DELIVERY.id);
    expect(got.headers['content-type']).toBe('application/json');
    expect(Number(got.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    expect(got.headers['webhook-signature']).toMatch(/^v1,/);
    expect(() =>
      new Webhook(SECRET).verify(got.body, got.headers as Record<string, string>),
    ).not.toThrow();
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(24, 8).toString('base64')}`).verify(
        got.body,
        got.headers as Record<string, string>,
      ),
    ).toThrow();
  });

  it('sends nothing to a private address unless private networks are allowed', async () => {
    const lookups: string[] = [];
    const resolve: HostResolver = async (hostname) => {
      lookups.push(hostname);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const notifier = new BackupWebhookNotifier(
      new OutboundHttp({ allowPrivateNetworks: false, resolve }),
      { timeoutMs: 2_000 },
    );
    for (const url of [
      `http://backups.internal.test:${port}/hook`,
      'http://169.254.169.254/latest/meta-data/',
      `http://127.0.0.1:${port}/hook`,
    ]) {
      const result = await notifier.attempt({ ...DELIVERY, url }, SECRET);
      expect(result).toMatchObject({ ok: false, refused: true, status: null });
    }
    expect(lookups).toEqual(['backups.internal.test']);
    expect(received).toHaveLength(0);
  });
});

describe('readWebhookSecret', () => {
  const clientWith = (found: unknown): KubeClient =>
    ({
      get: async (kind: { kind: string }) => {
        expect(kind).toBe(CoreKinds.Secret);
        if (found instanceof Error) throw found;
        return found;
      },
    }) as unknown as KubeClient;
  const secret = (data: Record<string, string>) => ({
    metadata: { name: 'hooks', namespace: 'team-a' },
    data: Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
    ),
  });

  it('reads the named key, `secret` by default', async () => {
    expect(
      await readWebhookSecret(clientWith(secret({ secret: SECRET })), 'team-a', { name: 'hooks' }),
    ).toEqual({ secret: SECRET });
    expect(
      await readWebhookSecret(clientWith(secret({ signing: `${SECRET}\n` })), 'team-a', {
        name: 'hooks',
        key: 'signing',
      }),
    ).toEqual({ secret: SECRET });
  });

  it('says why there is no key to sign with', async () => {
    const read = (found: unknown, ref?: { name: string; key?: string }) =>
      readWebhookSecret(clientWith(found), 'team-a', ref);
    expect(await read(undefined)).toEqual({
      reason: 'WebhookSecretNotSet',
      message: 'webhooks.secretRef names no Secret: deliveries are held, never sent unsigned',
    });
    expect(await read(undefined, { name: 'hooks' })).toEqual({
      reason: 'WebhookSecretMissing',
      message: 'Secret team-a/hooks does not exist',
    });
    expect(await read(secret({ other: SECRET }), { name: 'hooks' })).toEqual({
      reason: 'WebhookSecretMissing',
      message: 'Secret team-a/hooks has no key "secret"',
    });
    expect(await read(secret({ secret: 'hunter2' }), { name: 'hooks' })).toMatchObject({
      reason: 'WebhookSecretInvalid',
    });
    expect(await read(secret({ secret: 'whsec_c2hvcnQ=' }), { name: 'hooks' })).toMatchObject({
      reason: 'WebhookSecretInvalid',
    });
    expect(
      await read(new KubeApiError(403, 'secrets "hooks" is forbidden', 'Forbidden'), {
        name: 'hooks',
      }),
    ).toMatchObject({ reason: 'WebhookSecretUnreadable' });
  });
});
