import { AccountsRepository, MembershipsRepository } from '@platform/identity';
import type { TestApp } from '@platform/testing';
import { WebSocket } from 'ws';
import { login, signupBody } from '../support/identity.js';

export const CABLE_PROTOCOL = 'actioncable-v1-json';
export const NOTIFICATIONS_IDENTIFIER = JSON.stringify({ channel: 'NotificationsChannel' });

/** A server frame as received (`message` is the push of a channel message). */
export interface Frame {
  type?: string;
  identifier?: string;
  message?: unknown;
  [key: string]: unknown;
}

/** The WebSocket URL of an app started with `listen: true`. */
export function cableUrl(baseUrl: string | undefined, query: Record<string, string> = {}): string {
  if (!baseUrl) throw new Error('start the app with listen: true');
  const url = new URL('/cable', baseUrl.replace(/^http/, 'ws'));
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url.toString();
}

/** A raw `ws` client that records every frame, for asserting the wire protocol. */
export class CableSocket {
  readonly frames: Frame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      this.frames.push(JSON.parse(data.toString()) as Frame);
      this.notify();
    });
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        this.notify();
      }),
    );
  }

  static open(
    url: string,
    options: { protocols?: string[]; headers?: Record<string, string> } = {},
  ): Promise<CableSocket> {
    const socket = new WebSocket(
      url,
      options.protocols ?? [CABLE_PROTOCOL, 'actioncable-unsupported'],
      {
        headers: options.headers,
      },
    );
    const cable = new CableSocket(socket);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(cable));
      socket.once('error', reject);
    });
  }

  get protocol(): string {
    return this.socket.protocol;
  }

  send(frame: Record<string, unknown> | string | Buffer): void {
    this.socket.send(
      typeof frame === 'object' && !Buffer.isBuffer(frame) ? JSON.stringify(frame) : frame,
    );
  }

  subscribe(identifier = NOTIFICATIONS_IDENTIFIER): void {
    this.send({ command: 'subscribe', identifier });
  }

  /** The first recorded frame matching, waiting up to `timeoutMs` for it. */
  async waitFor(predicate: (frame: Frame) => boolean, timeoutMs = 5000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(predicate);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0 || this.socket.readyState === WebSocket.CLOSED) {
        throw new Error(`no matching frame; received ${JSON.stringify(this.frames)}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Frames matching after waiting `ms` (to assert that something did not arrive). */
  async settle(predicate: (frame: Frame) => boolean, ms = 300): Promise<Frame[]> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return this.frames.filter(predicate);
  }

  close(): void {
    if (this.socket.readyState !== WebSocket.CLOSED) this.socket.terminate();
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

export const isType =
  (type: string) =>
  (frame: Frame): boolean =>
    frame.type === type;

export const isPush =
  (event: string) =>
  (frame: Frame): boolean =>
    (frame.message as { event?: unknown } | undefined)?.event === event;

export const isMessageFor =
  (identifier: string) =>
  (frame: Frame): boolean =>
    frame.identifier === identifier && 'message' in frame;

/**
 * A customer account through the real signup, verified directly (no worker or SMTP sink
 * needed), logged in through the real login: its id, its organization and session JWT.
 */
export async function verifiedAccount(
  t: TestApp,
  email: string,
): Promise<{ accountId: string; organizationId: string; jwt: string }> {
  await t
    .request()
    .post('/create-account')
    .send(
      await signupBody(t, { login: email, name: email.split('@')[0], organization_name: email }),
    )
    .expect(201);
  const accounts = t.get(AccountsRepository);
  const account = await accounts.findByLogin(email);
  await accounts.update(account!.id, { emailVerifiedAt: t.clock.now() }, t.clock.now());
  const [membership] = await t.get(MembershipsRepository).listForAccount(account!.id);
  return {
    accountId: account!.id,
    organizationId: membership.organization_id,
    jwt: await login(t, email),
  };
}
