import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { BeforeApplicationShutdown, Logger } from '@nestjs/common';
import {
  type OnGatewayConnection,
  type OnGatewayDisconnect,
  WebSocketGateway,
} from '@nestjs/websockets';
import { Clock } from '@platform/core';
import { WebSocket } from 'ws';
import {
  CABLE_PATH,
  channelOf,
  NOTIFICATIONS_CHANNEL,
  parseCommand,
  selectProtocol,
  type ServerFrame,
} from './action-cable.js';
import { CableAuthenticator, type CableIdentity } from './cable-authenticator.js';
import { confinedPush, type PushEnvelope } from './notification-push.js';

export const PING_INTERVAL_MS = 3000;
/** Client frames are small commands; anything bigger is refused by the ws library. */
const MAX_FRAME_BYTES = 64 * 1024;
/** Identifiers may carry arbitrary params, so one socket could otherwise subscribe forever. */
const MAX_SUBSCRIPTIONS_PER_CONNECTION = 32;

interface CableConnection {
  socket: WebSocket;
  /** The TCP connection under the socket, corked while a batch of frames is written. */
  tcp: Socket;
  identity: CableIdentity | null;
  /** Resolves once the handshake is authenticated; commands are processed after it, in order. */
  ready: Promise<void>;
  subscriptions: Set<string>;
  heartbeat: NodeJS.Timeout | null;
}

/**
 * The Action Cable endpoint at /cable serving NotificationsChannel. Authenticates each socket
 * on connect; confirms NotificationsChannel subscriptions, rejects any other channel; pings
 * every 3 seconds; delivers pushes to the sockets of the account they are for (a static
 * token's socket only those of its organization); closes sockets whose credential ended.
 */
@WebSocketGateway({
  path: CABLE_PATH,
  maxPayload: MAX_FRAME_BYTES,
  handleProtocols: selectProtocol,
})
export class NotificationsCableGateway
  implements
    OnGatewayConnection<WebSocket>,
    OnGatewayDisconnect<WebSocket>,
    BeforeApplicationShutdown
{
  private readonly logger = new Logger('NotificationsCable');
  private readonly connections = new Map<WebSocket, CableConnection>();
  private readonly byAccount = new Map<string, Set<CableConnection>>();

  constructor(
    private readonly authenticator: CableAuthenticator,
    private readonly clock: Clock,
  ) {}

  handleConnection(socket: WebSocket, request: IncomingMessage): void {
    const connection: CableConnection = {
      socket,
      tcp: request.socket,
      identity: null,
      ready: Promise.resolve(),
      subscriptions: new Set(),
      heartbeat: null,
    };
    this.connections.set(socket, connection);
    connection.ready = this.open(connection, request);
    socket.on('message', (data) => {
      void connection.ready.then(() => this.receive(connection, data));
    });
  }

  handleDisconnect(socket: WebSocket): void {
    const connection = this.connections.get(socket);
    if (connection) this.forget(connection);
  }

  /**
   * Sends each push to every NotificationsChannel subscription of the account's local sockets; a
   * socket confined to one organization gets it only when it is about that organization. The
   * frames of a batch leave each socket in one write (its TCP connection corked meanwhile).
   */
  deliverMany(envelopes: readonly PushEnvelope[]): void {
    const corked = new Set<Socket>();
    try {
      for (const envelope of envelopes) {
        for (const connection of this.byAccount.get(envelope.account_id) ?? []) {
          const organizationId = connection.identity?.organizationId;
          const push = organizationId ? confinedPush(envelope, organizationId) : envelope.push;
          if (!push) continue;
          if (envelopes.length > 1 && !corked.has(connection.tcp)) {
            connection.tcp.cork();
            corked.add(connection.tcp);
          }
          for (const identifier of connection.subscriptions) {
            this.send(connection, { identifier, message: push });
          }
        }
      }
    } finally {
      for (const tcp of corked) tcp.uncork();
    }
  }

  /** The credentials local sockets are open on (static tokens' ids), each once. */
  credentialIds(): string[] {
    const ids = new Set<string>();
    for (const { identity } of this.connections.values()) {
      if (identity?.credentialId) ids.add(identity.credentialId);
    }
    return [...ids];
  }

  /** Ends the local sockets opened with these credentials, as unauthorized (no reconnect). */
  closeCredentials(credentialIds: Iterable<string>): void {
    const ended = new Set(credentialIds);
    if (ended.size === 0) return;
    for (const connection of [...this.connections.values()]) {
      const credentialId = connection.identity?.credentialId;
      if (credentialId && ended.has(credentialId)) {
        this.disconnect(connection, 'unauthorized', false);
      }
    }
  }

  /** Tells the clients to come back (to another replica) before the sockets are closed. */
  beforeApplicationShutdown(): void {
    for (const connection of [...this.connections.values()]) {
      this.disconnect(connection, 'server_restart', true);
    }
  }

  private async open(connection: CableConnection, request: IncomingMessage): Promise<void> {
    let identity: CableIdentity | null;
    try {
      identity = await this.authenticator.authenticate(request);
    } catch (error) {
      this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
      this.disconnect(connection, 'server_error', true);
      return;
    }
    if (connection.socket.readyState !== WebSocket.OPEN) return;
    if (!identity) {
      this.disconnect(connection, 'unauthorized', false);
      return;
    }
    connection.identity = identity;
    let sockets = this.byAccount.get(identity.accountId);
    if (!sockets) this.byAccount.set(identity.accountId, (sockets = new Set()));
    sockets.add(connection);
    this.send(connection, { type: 'welcome' });
    connection.heartbeat = setInterval(() => this.beat(connection), PING_INTERVAL_MS);
    connection.heartbeat.unref();
  }

  private beat(connection: CableConnection): void {
    const expiresAt = connection.identity?.expiresAt;
    if (expiresAt && expiresAt.getTime() <= this.clock.nowMs()) {
      this.disconnect(connection, 'unauthorized', false);
      return;
    }
    this.send(connection, { type: 'ping', message: Math.floor(this.clock.nowMs() / 1000) });
  }

  private receive(connection: CableConnection, data: unknown): void {
    if (!connection.identity || connection.socket.readyState !== WebSocket.OPEN) return;
    const command = parseCommand(data);
    if (!command) return;
    const { identifier } = command;
    switch (command.command) {
      case 'subscribe': {
        if (connection.subscriptions.has(identifier)) return; // as Rails: already subscribed
        if (
          channelOf(identifier) !== NOTIFICATIONS_CHANNEL ||
          connection.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_CONNECTION
        ) {
          this.send(connection, { identifier, type: 'reject_subscription' });
          return;
        }
        connection.subscriptions.add(identifier);
        this.send(connection, { identifier, type: 'confirm_subscription' });
        return;
      }
      case 'unsubscribe':
        connection.subscriptions.delete(identifier);
        return;
      default:
        // `message` (channel actions): NotificationsChannel has none; unknown commands are ignored.
        return;
    }
  }

  private send(connection: CableConnection, frame: ServerFrame): void {
    if (connection.socket.readyState !== WebSocket.OPEN) return;
    connection.socket.send(JSON.stringify(frame));
  }

  private disconnect(
    connection: CableConnection,
    reason: Extract<ServerFrame, { type: 'disconnect' }>['reason'],
    reconnect: boolean,
  ): void {
    this.send(connection, { type: 'disconnect', reason, reconnect });
    this.forget(connection);
    if (connection.socket.readyState === WebSocket.OPEN) connection.socket.close(1000);
  }

  private forget(connection: CableConnection): void {
    if (connection.heartbeat) clearInterval(connection.heartbeat);
    connection.heartbeat = null;
    connection.subscriptions.clear();
    this.connections.delete(connection.socket);
    const accountId = connection.identity?.accountId;
    const sockets = accountId ? this.byAccount.get(accountId) : undefined;
    if (sockets) {
      sockets.delete(connection);
      if (sockets.size === 0) this.byAccount.delete(accountId!);
    }
  }
}
