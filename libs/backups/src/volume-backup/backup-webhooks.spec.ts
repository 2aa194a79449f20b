import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type HostResolver, OutboundHttp } from '@platform/outbound';
import { type BackupWebhookPayload, BackupWebhookNotifier } from './backup-webhooks.js';

const PAYLOAD: BackupWebhookPayload = {
  event: 'backup.succeeded',
  volumeBackup: { namespace: 'team-a', name: 'app', uid: 'uid-1' },
  job: 'app-backup-1',
  snapshotId: 'abc',
  volumeSize: '1Gi',
  startTime: null,
  completionTime: null,
  message: 'done',
};

describe('BackupWebhookNotifier: URLs the outbound client refuses', () => {
  let server: Server;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.once('data', () => socket.end('HTTP/1.1 204 No Content\r\n\r\n'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends nothing to a private address and does not retry the refusal', async () => {
    const lookups: string[] = [];
    const resolve: HostResolver = async (hostname) => {
      lookups.push(hostname);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const notifier = new BackupWebhookNotifier(
      new OutboundHttp({ allowPrivateNetworks: false, resolve }),
      { attempts: 5, initialDelayMs: 10, maxDelayMs: 10, timeoutMs: 2_000 },
    );
    notifier.send(`http://backups.internal.test:${port}/hook`, PAYLOAD);
    notifier.send(`http://169.254.169.254/latest/meta-data/`, PAYLOAD);
    notifier.send(`http://127.0.0.1:${port}/hook`, PAYLOAD);
    await notifier.idle();
    expect(lookups).toEqual(['backups.internal.test']);
    expect(connections).toBe(0);
  });

  it('posts to the same receiver when private networks are allowed', async () => {
    const notifier = new BackupWebhookNotifier(new OutboundHttp({ allowPrivateNetworks: true }), {
      attempts: 1,
      timeoutMs: 2_000,
    });
    notifier.send(`http://127.0.0.1:${port}/hook`, PAYLOAD);
    await notifier.idle();
    expect(connections).toBe(1);
  });
});
