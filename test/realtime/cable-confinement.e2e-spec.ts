import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MembershipsRepository } from '@platform/identity';
import { NotificationPush, NotifyService } from '@platform/notifications';
import type { TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createApiTestApp } from '../support/api-app.js';
import { bearer, login, mintToken, PASSWORD } from '../support/identity.js';
import {
  CableSocket,
  cableUrl,
  type Frame,
  isMessageFor,
  isPush,
  isType,
  NOTIFICATIONS_IDENTIFIER,
  verifiedAccount,
} from './cable-socket.js';

type Account = Awaited<ReturnType<typeof verifiedAccount>>;

const UNAUTHORIZED = { type: 'disconnect', reason: 'unauthorized', reconnect: false };

/** The pushes a socket received: event, notification id and unread count. */
const pushes = (socket: CableSocket) =>
  socket.frames.filter(isMessageFor(NOTIFICATIONS_IDENTIFIER)).map((frame: Frame) => {
    const message = frame.message as {
      event: string;
      notification?: { id: string };
      unread_count: number;
    };
    return [message.event, message.notification?.id ?? null, message.unread_count];
  });

/**
 * /cable with a static token: only its organization's pushes, only with notifications:read,
 * and closed on every replica once the token no longer authenticates. Ada belongs to
 * organization A (hers) and organization B (Bob's).
 */
describe('static tokens on /cable', () => {
  let a: TestApp;
  let b: TestApp;
  let ada: Account;
  let bob: Account;
  let orgA: string;
  let orgB: string;
  const sockets: CableSocket[] = [];

  const open = async (app: TestApp, token: string): Promise<CableSocket> => {
    const socket = await CableSocket.open(cableUrl(app.baseUrl, { token }));
    sockets.push(socket);
    return socket;
  };

  const subscribed = async (app: TestApp, token: string): Promise<CableSocket> => {
    const socket = await open(app, token);
    socket.subscribe();
    await socket.waitFor(isType('confirm_subscription'));
    return socket;
  };

  /** Mints an organization-B token of Ada's: its raw value and id. */
  const mintInB = async (scopes: string[]): Promise<{ token: string; id: string }> => {
    const res = await a
      .request()
      .post(`/tokens?organization_id=${orgB}`)
      .set(bearer(ada.jwt))
      .send({ token: { name: scopes.join(' '), scopes } })
      .expect(201);
    return { token: res.body.data.token as string, id: res.body.data.token_id as string };
  };

  const notifyAda = async (organizationId: string | null): Promise<string> => {
    const [outcome] = await a.get(NotifyService).notify({
      category: 'feature_request',
      eventType: 'approved',
      organizationId,
      recipients: [ada.accountId],
      payload: {},
      channels: ['in_app'],
    });
    return outcome.notificationId!;
  };

  const expectUnauthorized = async (socket: CableSocket) => {
    expect(await socket.waitFor(isType('disconnect'))).toEqual(UNAUTHORIZED);
    await socket.closed;
  };

  beforeAll(async () => {
    a = await createApiTestApp({ listen: true });
    b = await createApiTestApp({ listen: true, shareWith: a });
    ada = await verifiedAccount(a, 'ada@cable.example');
    bob = await verifiedAccount(a, 'bob@cable.example');
    orgA = ada.organizationId;
    orgB = bob.organizationId;
    await a
      .get(MembershipsRepository)
      .add(a.get(DataSource).manager, orgB, ada.accountId, 'developer', a.clock.now());
  });

  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await b?.close();
    await a?.close();
  });

  it('refuses an organization-B token with only dns:read, as in the finding', async () => {
    const token = await mintToken(a, ada.jwt, ['dns:read'], `?organization_id=${orgB}`);
    const socket = await open(a, token);
    await expectUnauthorized(socket);
    expect(socket.frames).toEqual([UNAUTHORIZED]);
  });

  it("delivers to an organization-B token only organization B's pushes and unread count", async () => {
    const session = await subscribed(a, ada.jwt);
    const { token: reader } = await mintInB(['notifications:read']);
    const confined = await subscribed(b, reader);
    const { token: writer } = await mintInB(['notifications:write']);

    const inA = await notifyAda(orgA);
    await session.waitFor(() => pushes(session).length === 1);
    const inB = await notifyAda(orgB);
    const ofNone = await notifyAda(null);
    await session.waitFor(() => pushes(session).length === 3);
    await confined.waitFor(isPush('created'));
    // Ada's session reads A's notification; B's token marks all of B's read; then the session
    // marks everything read.
    await a.request().patch(`/notifications/${inA}/read`).set(bearer(ada.jwt)).expect(200);
    await session.waitFor(isPush('read'));
    await a.request().post('/notifications/mark_all_read').set(bearer(writer)).expect(200);
    await session.waitFor(isPush('all_read'));
    await a.request().post('/notifications/mark_all_read').set(bearer(ada.jwt)).expect(200);
    await session.waitFor(() => pushes(session).length === 6);
    await confined.waitFor(() => pushes(confined).length === 3);

    expect(pushes(session)).toEqual([
      ['created', inA, 1],
      ['created', inB, 2],
      ['created', ofNone, 3],
      ['read', inA, 2],
      ['all_read', null, 1],
      ['all_read', null, 0],
    ]);
    // Pushes travel in order, so once the last arrived, none of the others is on its way.
    expect(pushes(confined)).toEqual([
      ['created', inB, 1],
      ['all_read', null, 0],
      ['all_read', null, 0],
    ]);
  });

  it('closes the sockets of a revoked token on every replica; other sockets stay', async () => {
    const { token, id } = await mintInB(['notifications:read']);
    const onA = await subscribed(a, token);
    const onB = await subscribed(b, token);
    const session = await subscribed(b, ada.jwt);
    const { token: kept } = await mintInB(['notifications:read']);
    const otherToken = await subscribed(a, kept);

    await a
      .request()
      .delete(`/tokens/${id}?organization_id=${orgB}`)
      .set(bearer(ada.jwt))
      .expect(204);
    await expectUnauthorized(onA);
    await expectUnauthorized(onB);

    await a
      .get(NotificationPush)
      .publish(
        ada.accountId,
        { event: 'all_read', unread_count: 0 },
        { organizationId: null, unreadByOrganization: {} },
      );
    await session.waitFor(isPush('all_read'));
    await otherToken.waitFor(isPush('all_read'));
    expect(session.socket.readyState).toBe(session.socket.OPEN);
  });

  it('closes the sockets of a token whose owner left its organization', async () => {
    const { token } = await mintInB(['notifications:read']);
    const onB = await subscribed(b, token);
    const session = await subscribed(a, ada.jwt);
    const memberships = await a
      .request()
      .get(`/memberships?organization_id=${orgB}`)
      .set(bearer(bob.jwt))
      .expect(200);
    const membership = (memberships.body.data as Array<{ id: string; account_id: string }>).find(
      (m) => m.account_id === ada.accountId,
    )!;
    await a
      .request()
      .delete(`/memberships/${membership.id}?organization_id=${orgB}`)
      .set(bearer(bob.jwt))
      .expect(204);
    await expectUnauthorized(onB);
    expect(session.socket.readyState).toBe(session.socket.OPEN);
  });

  it('closes the sockets of a session ended by a logout or a password change, on every replica', async () => {
    const first = await login(a, 'bob@cable.example');
    const second = await login(a, 'bob@cable.example');
    const third = await login(a, 'bob@cable.example');
    const loggedOutOnA = await subscribed(a, first);
    const loggedOutOnB = await subscribed(b, first);
    const kept = await subscribed(b, second);

    await a.request().post('/logout').set(bearer(first)).expect(204);
    await expectUnauthorized(loggedOutOnA);
    await expectUnauthorized(loggedOutOnB);
    expect(kept.socket.readyState).toBe(kept.socket.OPEN);

    const changed = await a
      .request()
      .post('/accounts/me/password')
      .set(bearer(third))
      .send({
        current_password: PASSWORD,
        password: 'a new correct horse battery',
        'password-confirm': 'a new correct horse battery',
      })
      .expect(200);
    await expectUnauthorized(kept);
    // The session the password was changed with goes on with the JWT it was handed.
    const fresh = changed.headers.authorization.replace(/^Bearer /, '');
    const afterChange = await subscribed(a, fresh);
    expect(afterChange.socket.readyState).toBe(afterChange.socket.OPEN);
  });
});
