import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NotificationPush, NotifyService } from '@platform/notifications';
import type { TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';
import { bearer } from '../support/identity.js';
import {
  CableSocket,
  cableUrl,
  isMessageFor,
  isPush,
  isType,
  NOTIFICATIONS_IDENTIFIER,
  verifiedAccount,
} from './cable-socket.js';

type Account = Awaited<ReturnType<typeof verifiedAccount>>;

describe('pushes across API replicas', () => {
  let a: TestApp;
  let b: TestApp | null = null;
  let other: TestApp;
  let ada: Account;
  let grace: Account;
  const sockets: CableSocket[] = [];

  const subscribed = async (app: TestApp, token: string): Promise<CableSocket> => {
    const socket = await CableSocket.open(cableUrl(app.baseUrl, { token }));
    sockets.push(socket);
    socket.subscribe();
    await socket.waitFor(isType('confirm_subscription'));
    return socket;
  };

  beforeAll(async () => {
    a = await createApiTestApp({ listen: true });
    b = await createApiTestApp({ listen: true, shareWith: a });
    // A deployment of its own (another Redis prefix) on the same Redis and database.
    other = await createApiTestApp({
      listen: true,
      shareWith: a,
      config: { redisPrefix: `${a.config.redisPrefix}-other` },
    });
    ada = await verifiedAccount(a, 'ada@example.com');
    // Signed up through replica B: both replicas serve the same accounts.
    grace = await verifiedAccount(b!, 'grace@example.com');
  });

  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await other?.close();
    await b?.close();
    await a?.close();
  });

  it('shares the database and the Redis prefix between the two replicas', () => {
    expect(b!.database.name).toBe(a.database.name);
    expect(b!.config.redisPrefix).toBe(a.config.redisPrefix);
    expect(b!.baseUrl).not.toBe(a.baseUrl);
  });

  it('delivers a push published through replica A to a socket on replica B', async () => {
    const onB = await subscribed(b!, ada.jwt);
    const onA = await subscribed(a, ada.jwt);
    const graceOnB = await subscribed(b!, grace.jwt);
    const elsewhere = await subscribed(other, ada.jwt);

    const push = {
      event: 'created' as const,
      notification: { id: 'f00d', title: 'Backup failed' },
      unread_count: 1,
    };
    await a.get(NotificationPush).publish(ada.accountId, push);
    const expected = { identifier: NOTIFICATIONS_IDENTIFIER, message: push };
    expect(await onB.waitFor(isMessageFor(NOTIFICATIONS_IDENTIFIER))).toEqual(expected);
    expect(await onA.waitFor(isMessageFor(NOTIFICATIONS_IDENTIFIER))).toEqual(expected);
    expect(await graceOnB.settle(isMessageFor(NOTIFICATIONS_IDENTIFIER))).toEqual([]);
    expect(await elsewhere.settle(isMessageFor(NOTIFICATIONS_IDENTIFIER))).toEqual([]);

    await b!.get(NotificationPush).publish(ada.accountId, { event: 'all_read', unread_count: 0 });
    await onA.waitFor(isPush('all_read'));
  });

  it('delivers a notification created through replica A to a socket held on replica B', async () => {
    const onB = await subscribed(b!, grace.jwt);
    const onA = await subscribed(a, grace.jwt);
    const adaOnB = await subscribed(b!, ada.jwt);

    const [outcome] = await a.get(NotifyService).notify({
      category: 'billing',
      eventType: 'invoice_issued',
      organizationId: null,
      recipients: [grace.accountId],
      payload: { invoice: 'INV-42' },
    });
    expect(outcome.notificationId).toEqual(expect.any(String));

    const created = await onB.waitFor(isPush('created'));
    expect(created).toEqual({
      identifier: NOTIFICATIONS_IDENTIFIER,
      message: {
        event: 'created',
        notification: expect.objectContaining({
          id: outcome.notificationId,
          category: 'billing',
          event_type: 'invoice_issued',
        }),
        unread_count: 1,
      },
    });
    expect(await adaOnB.settle(isPush('created'))).toEqual([]);

    // Reading it through replica B's HTTP API reaches the socket on replica A.
    await b!
      .request()
      .patch(`/notifications/${outcome.notificationId}/read`)
      .set(bearer(grace.jwt))
      .expect(200);
    expect((await onA.waitFor(isPush('read'))).message).toEqual({
      event: 'read',
      notification: { id: outcome.notificationId, read_at: expect.any(String) },
      unread_count: 0,
    });
  });

  it('tells its clients to reconnect elsewhere when a replica shuts down', async () => {
    const onB = await subscribed(b!, ada.jwt);
    const closing = b!;
    b = null;
    await closing.close();
    expect(await onB.waitFor(isType('disconnect'))).toEqual({
      type: 'disconnect',
      reason: 'server_restart',
      reconnect: true,
    });
    await onB.closed;

    // The remaining replica still delivers.
    const onA = await subscribed(a, ada.jwt);
    await a.get(NotificationPush).publish(ada.accountId, { event: 'read', unread_count: 0 });
    await onA.waitFor(isMessageFor(NOTIFICATIONS_IDENTIFIER));
  });
});
