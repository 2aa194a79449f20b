import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { AccountsRepository, SessionTokens } from '@platform/identity';
import { NotificationPush } from '@platform/notifications';
import type { TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';
import { bearer, mintToken, signupBody } from '../support/identity.js';
import {
  CABLE_PROTOCOL,
  CableSocket,
  cableUrl,
  isMessageFor,
  isPush,
  isType,
  NOTIFICATIONS_IDENTIFIER,
  verifiedAccount,
} from './cable-socket.js';

type Account = Awaited<ReturnType<typeof verifiedAccount>>;

const UNAUTHORIZED = { type: 'disconnect', reason: 'unauthorized', reconnect: false };

describe('Action Cable protocol at /cable', () => {
  let t: TestApp;
  let ada: Account;
  let grace: Account;
  const sockets: CableSocket[] = [];

  const open = async (
    query: Record<string, string> = {},
    options: Parameters<typeof CableSocket.open>[1] = {},
  ): Promise<CableSocket> => {
    const socket = await CableSocket.open(cableUrl(t.baseUrl, query), options);
    sockets.push(socket);
    return socket;
  };

  /** Connected, welcomed and subscribed to NotificationsChannel. */
  const subscribed = async (token: string, identifier = NOTIFICATIONS_IDENTIFIER) => {
    const socket = await open({ token });
    await socket.waitFor(isType('welcome'));
    socket.subscribe(identifier);
    await socket.waitFor((f) => f.identifier === identifier && f.type === 'confirm_subscription');
    return socket;
  };

  const expectUnauthorized = async (socket: CableSocket) => {
    const frame = await socket.waitFor(isType('disconnect'));
    expect(frame).toEqual(UNAUTHORIZED);
    await socket.closed;
    expect(socket.frames).toEqual([UNAUTHORIZED]);
  };

  beforeAll(async () => {
    t = await createApiTestApp({ listen: true });
    ada = await verifiedAccount(t, 'ada@example.com');
    grace = await verifiedAccount(t, 'grace@example.com');
  });

  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('answers the actioncable-v1-json subprotocol, welcomes, then pings every 3 seconds', async () => {
    const socket = await open({ token: ada.jwt });
    expect(socket.protocol).toBe(CABLE_PROTOCOL);
    expect(await socket.waitFor(() => true)).toEqual({ type: 'welcome' });
    const ping = await socket.waitFor(isType('ping'), 4500);
    expect(ping).toEqual({ type: 'ping', message: Math.floor(t.clock.nowMs() / 1000) });
    expect(Number.isInteger(ping.message)).toBe(true);
  });

  it('confirms NotificationsChannel with the identical identifier, byte for byte', async () => {
    const socket = await open({ token: ada.jwt });
    await socket.waitFor(isType('welcome'));
    const identifier = '{ "channel":"NotificationsChannel",  "room": "ünïcode ✓" }';
    socket.subscribe(identifier);
    const frame = await socket.waitFor((f) => f.type === 'confirm_subscription');
    expect(frame).toEqual({ identifier, type: 'confirm_subscription' });
  });

  it('rejects other channels and identifiers that are not JSON', async () => {
    const socket = await open({ token: ada.jwt });
    await socket.waitFor(isType('welcome'));
    for (const identifier of [
      JSON.stringify({ channel: 'ChatChannel' }),
      JSON.stringify({ channel: 'notificationschannel' }),
      'NotificationsChannel',
      '[]',
    ]) {
      socket.subscribe(identifier);
      expect(await socket.waitFor((f) => f.identifier === identifier)).toEqual({
        identifier,
        type: 'reject_subscription',
      });
    }
  });

  it('processes a subscribe sent before the welcome after authenticating', async () => {
    const socket = await open({ token: ada.jwt });
    socket.subscribe();
    await socket.waitFor(isType('confirm_subscription'));
    expect(socket.frames.map((f) => f.type)).toEqual(['welcome', 'confirm_subscription']);
  });

  it('tolerates malformed frames and keeps the connection', async () => {
    const socket = await open({ token: ada.jwt });
    await socket.waitFor(isType('welcome'));
    socket.send('not json');
    socket.send('[1,2]');
    socket.send('null');
    socket.send(Buffer.from([0xff, 0xfe, 0x00]));
    socket.send({ command: 'subscribe' });
    socket.send({ command: 'subscribe', identifier: { channel: 'NotificationsChannel' } });
    socket.send({ command: 'dance', identifier: NOTIFICATIONS_IDENTIFIER });
    socket.send({ command: 'message', identifier: NOTIFICATIONS_IDENTIFIER, data: '{}' });
    socket.send({ command: 'unsubscribe', identifier: 'never subscribed' });
    socket.subscribe();
    await socket.waitFor(isType('confirm_subscription'));
    expect(socket.frames.filter((f) => f.type !== 'ping')).toEqual([
      { type: 'welcome' },
      { identifier: NOTIFICATIONS_IDENTIFIER, type: 'confirm_subscription' },
    ]);
  });

  it('delivers pushes to every subscription of the account, and stops after unsubscribe', async () => {
    const other = JSON.stringify({ channel: 'NotificationsChannel', tab: 2 });
    const socket = await subscribed(ada.jwt);
    socket.subscribe(other);
    await socket.waitFor((f) => f.identifier === other && f.type === 'confirm_subscription');
    const graces = await subscribed(grace.jwt);

    const push = {
      event: 'created' as const,
      notification: { id: 'n-1', title: 'Disk almost full' },
      unread_count: 3,
    };
    await t.get(NotificationPush).publish(ada.accountId, push);
    expect(await socket.waitFor(isMessageFor(NOTIFICATIONS_IDENTIFIER))).toEqual({
      identifier: NOTIFICATIONS_IDENTIFIER,
      message: push,
    });
    expect(await socket.waitFor(isMessageFor(other))).toEqual({ identifier: other, message: push });

    socket.send({ command: 'unsubscribe', identifier: other });
    await t.get(NotificationPush).publish(ada.accountId, { event: 'all_read', unread_count: 0 });
    await socket.waitFor(isPush('all_read'));
    expect(socket.frames.filter(isMessageFor(other))).toHaveLength(1);
    expect(await graces.settle(isMessageFor(NOTIFICATIONS_IDENTIFIER))).toEqual([]);
  });

  it('authenticates with a static API token that has notifications:read', async () => {
    const token = await mintToken(t, ada.jwt, ['notifications:read']);
    expect(token).toMatch(/^hq_pat_/);
    const socket = await subscribed(token);
    await t
      .get(NotificationPush)
      .publish(
        ada.accountId,
        { event: 'read', unread_count: 3 },
        { organizationId: ada.organizationId, unreadByOrganization: { [ada.organizationId]: 1 } },
      );
    expect(await socket.waitFor(isMessageFor(NOTIFICATIONS_IDENTIFIER))).toEqual({
      identifier: NOTIFICATIONS_IDENTIFIER,
      message: { event: 'read', unread_count: 1 },
    });
  });

  it('disconnects a static token without notifications:read, never to reconnect', async () => {
    const token = await mintToken(t, ada.jwt, ['alerts:read', 'organization:*']);
    await expectUnauthorized(await open({ token }));
  });

  it('authenticates with the _hq_session cookie, unless the page is of another origin', async () => {
    const cookie = { cookie: `_hq_session=${ada.jwt}` };
    const own = await open({}, { headers: cookie });
    await own.waitFor(isType('welcome'));
    const publicOrigin = await open(
      {},
      { headers: { ...cookie, origin: 'http://localhost:3000' } },
    );
    await publicOrigin.waitFor(isType('welcome'));
    const foreign = await open({}, { headers: { ...cookie, origin: 'https://evil.example' } });
    await expectUnauthorized(foreign);
  });

  it('disconnects without credentials or with bad ones, never to reconnect', async () => {
    await expectUnauthorized(await open());
    await expectUnauthorized(await open({ token: 'not-a-jwt' }));
    await expectUnauthorized(await open({ token: `${ada.jwt.slice(0, -4)}AAAA` }));
    await expectUnauthorized(await open({ token: 'hq_pat_doesnotexist' }));
    await expectUnauthorized(await open({}, { headers: { cookie: '_hq_session=garbage' } }));
  });

  it('refuses revoked tokens, unverified accounts and expired sessions', async () => {
    const minted = await t
      .request()
      .post('/tokens')
      .set(bearer(ada.jwt))
      .send({ token: { name: 'to revoke', scopes: ['notifications:read'] } })
      .expect(201);
    const { token, token_id: tokenId } = minted.body.data;
    await subscribed(token);
    await t.request().delete(`/tokens/${tokenId}`).set(bearer(ada.jwt)).expect(204);
    await expectUnauthorized(await open({ token }));

    await t
      .request()
      .post('/create-account')
      .send(await signupBody(t, { login: 'unverified@example.com', organization_name: 'Nope' }))
      .expect(201);
    const unverified = await t.get(AccountsRepository).findByLogin('unverified@example.com');
    const session = await t.get(SessionTokens).issue(unverified!.id);
    await expectUnauthorized(await open({ token: session.token }));

    const expiring = await t.get(SessionTokens).issue(ada.accountId);
    t.clock.advance({ hours: 13 });
    try {
      await expectUnauthorized(await open({ token: expiring.token }));
    } finally {
      t.clock.advance({ hours: -13 });
    }
  });

  it('ends a session-authenticated connection once the session expires', async () => {
    const { token } = await t.get(SessionTokens).issue(ada.accountId);
    const socket = await subscribed(token);
    t.clock.advance({ hours: 13 });
    try {
      const frame = await socket.waitFor(isType('disconnect'), 4500);
      expect(frame).toEqual(UNAUTHORIZED);
      await socket.closed;
    } finally {
      t.clock.advance({ hours: -13 });
    }
  });

  it('leaves plain HTTP on /cable and other upgrade paths alone', async () => {
    await t.request().get('/cable').expect(404);
    await expect(CableSocket.open(`${cableUrl(t.baseUrl)}/elsewhere`)).rejects.toThrow();
  });
});
