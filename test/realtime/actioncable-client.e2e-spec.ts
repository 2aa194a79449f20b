import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NotificationPush, NotifyService, pushChannel } from '@platform/notifications';
import { Redis } from 'ioredis';
import type * as ActionCableModule from '@rails/actioncable';
import { WebSocket } from 'ws';
import { eventually, type TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';
import { bearer } from '../support/identity.js';
import { cableUrl, verifiedAccount } from './cable-socket.js';

type ActionCable = typeof ActionCableModule;

/** What one subscription's callbacks saw, with a way to wait for the next event. */
class Recorder {
  readonly events: Array<{ kind: string; data?: unknown }> = [];
  private wake: (() => void) | null = null;

  readonly mixin: ActionCableModule.Mixin = {
    connected: () => this.record('connected'),
    disconnected: (details) => this.record('disconnected', details),
    rejected: () => this.record('rejected'),
    received: (data) => this.record('received', data),
  };

  async waitFor(kind: string, timeoutMs = 5000): Promise<{ kind: string; data?: unknown }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find((event) => event.kind === kind);
      if (found) return found;
      if (Date.now() >= deadline) throw new Error(`no ${kind}; saw ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  private record(kind: string, data?: unknown): void {
    this.events.push({ kind, data });
    this.wake?.();
  }
}

describe('the stock @rails/actioncable client', () => {
  let t: TestApp;
  let ada: Awaited<ReturnType<typeof verifiedAccount>>;
  let ActionCable: ActionCable;
  const consumers: ActionCableModule.Consumer[] = [];

  beforeAll(async () => {
    // The client is written for browsers: it takes the global WebSocket when it loads, and
    // its connection monitor listens for visibilitychange on the window.
    const globals = globalThis as Record<string, unknown>;
    globals.WebSocket ??= WebSocket;
    globals.addEventListener ??= () => undefined;
    globals.removeEventListener ??= () => undefined;
    const loaded = (await import('@rails/actioncable')) as ActionCable & { default?: ActionCable };
    ActionCable = typeof loaded.createConsumer === 'function' ? loaded : loaded.default!;

    t = await createApiTestApp({ listen: true });
    ada = await verifiedAccount(t, 'ada@example.com');
  });

  afterAll(async () => {
    for (const consumer of consumers) consumer.disconnect();
    await t?.close();
  });

  const consumer = (token: string) => {
    const created = ActionCable.createConsumer(cableUrl(t.baseUrl, { token }));
    consumers.push(created);
    return created;
  };

  it('subscribes to NotificationsChannel with a JWT and receives pushes', async () => {
    const cable = consumer(ada.jwt);
    const recorder = new Recorder();
    cable.subscriptions.create({ channel: 'NotificationsChannel' }, recorder.mixin);
    await recorder.waitFor('connected');
    expect(cable.connection.getProtocol()).toBe('actioncable-v1-json');

    const push = {
      event: 'created' as const,
      notification: { id: 'b7d1', category: 'alerts', title: 'CPU above 90 %', read: false },
      unread_count: 4,
    };
    await t.get(NotificationPush).publish(ada.accountId, push);
    expect((await recorder.waitFor('received')).data).toEqual(push);
    expect(recorder.events.map((event) => event.kind)).toEqual(['connected', 'received']);
  });

  it('receives a burst published together in order: one Redis message per 250 pushes, one frame each', async () => {
    const cable = consumer(ada.jwt);
    const recorder = new Recorder();
    cable.subscriptions.create({ channel: 'NotificationsChannel' }, recorder.mixin);
    await recorder.waitFor('connected');
    const watcher = new Redis(t.config.redisUrl);
    const publisher = new Redis(t.config.redisUrl);
    const messages: string[] = [];
    watcher.on('message', (_channel: string, message: string) => messages.push(message));
    await watcher.subscribe(pushChannel(t.config));
    try {
      const pushes = Array.from({ length: 300 }, (_, n) => ({
        accountId: ada.accountId,
        push: { event: 'created' as const, notification: { id: `n${n}` }, unread_count: n + 1 },
      }));
      expect(await t.get(NotificationPush).publishMany(pushes)).toEqual(pushes.map(() => null));
      await eventually(
        () => recorder.events.length,
        (n) => n >= 301,
      );
      expect(recorder.events.slice(1).map((event) => event.data)).toEqual(
        pushes.map((p) => p.push),
      );
      expect(messages.map((message) => (JSON.parse(message) as unknown[]).length)).toEqual([
        250, 50,
      ]);

      // A single envelope (a publisher from before batching) and an array with a malformed
      // entry: every well-formed push is delivered.
      const single = { event: 'created', notification: { id: 'single' }, unread_count: 1 };
      const kept = { event: 'created', notification: { id: 'kept' }, unread_count: 2 };
      await watcher
        .duplicate()
        .publish(
          pushChannel(t.config),
          JSON.stringify({ account_id: ada.accountId, push: single }),
        );
      await watcher
        .duplicate()
        .publish(
          pushChannel(t.config),
          JSON.stringify([{ account_id: 7 }, { account_id: ada.accountId, push: kept }]),
        );
      await eventually(
        () => recorder.events.length,
        (n) => n >= 303,
      );
      expect(recorder.events.slice(301).map((event) => event.data)).toEqual([single, kept]);
    } finally {
      watcher.disconnect();
      publisher.disconnect();
    }
  });

  it('receives a notification created through NotifyService, with the unread count', async () => {
    const cable = consumer(ada.jwt);
    const recorder = new Recorder();
    cable.subscriptions.create({ channel: 'NotificationsChannel' }, recorder.mixin);
    await recorder.waitFor('connected');

    const [outcome] = await t.get(NotifyService).notify({
      category: 'billing',
      eventType: 'invoice_issued',
      organizationId: null,
      recipients: [ada.accountId],
      payload: { invoice: 'INV-7' },
    });
    expect(outcome.notificationId).toEqual(expect.any(String));

    const received = (await recorder.waitFor('received')).data as {
      event: string;
      notification: Record<string, unknown>;
      unread_count: number;
    };
    const { body } = await t.request().get('/notifications/unread_count').set(bearer(ada.jwt));
    expect(received).toEqual({
      event: 'created',
      notification: expect.objectContaining({
        id: outcome.notificationId,
        category: 'billing',
        event_type: 'invoice_issued',
        payload: { invoice: 'INV-7' },
      }),
      unread_count: 1,
    });
    expect(body.data).toEqual({ unread_count: 1 });
  });

  it('is rejected for another channel', async () => {
    const cable = consumer(ada.jwt);
    const recorder = new Recorder();
    cable.subscriptions.create({ channel: 'ChatChannel' }, recorder.mixin);
    await recorder.waitFor('rejected');
    expect(recorder.events.map((event) => event.kind)).toEqual(['rejected']);
  });

  it('is disconnected for good with a bad token', async () => {
    const cable = consumer('definitely-not-a-session');
    const recorder = new Recorder();
    cable.subscriptions.create({ channel: 'NotificationsChannel' }, recorder.mixin);
    const disconnected = await recorder.waitFor('disconnected');
    expect(disconnected.data).toEqual({ willAttemptReconnect: false });
    expect(recorder.events.some((event) => event.kind === 'connected')).toBe(false);
    expect(cable.connection.isOpen()).toBe(false);
  });
});
