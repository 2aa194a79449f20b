import { Worker } from 'node:worker_threads';
import { SessionTokens } from '@platform/identity';
import type { TestApp } from '@platform/testing';
import { ArrivalLog } from '../notifications/arrival-log.js';

/** A `created` frame as a client received it. */
export interface Frame {
  /** Epoch ms at arrival. */
  at: number;
  accountId: string;
  eventType: string;
  alertname: string | null;
  alertId: string | null;
}

type FrameTuple = [number, number, string, string | null, string | null];

/**
 * One NotificationsChannel socket per account, opened on a login session of the account
 * (the `token` query parameter, as a browser tab of the person would), run in a worker thread
 * of their own (sockets-thread.ts) so that reading and timestamping frames does not queue
 * behind the API they measure. Frames arrive in `frames`; sockets the server closed, in
 * `dropped`.
 */
export class CableListeners {
  readonly frames = new ArrivalLog<Frame>();
  readonly dropped: string[] = [];

  private constructor(
    private readonly worker: Worker,
    private readonly accounts: readonly string[],
  ) {
    worker.on('message', (message: { frames?: FrameTuple[]; dropped?: string }) => {
      if (message.dropped) this.dropped.push(message.dropped);
      if (!message.frames) return;
      this.frames.add(
        message.frames.map(([index, at, eventType, alertname, alertId]) => ({
          at,
          accountId: this.accounts[index],
          eventType,
          alertname,
          alertId,
        })),
      );
    });
  }

  /** Connects and subscribes a socket per account; resolves once every one is confirmed. */
  static async open(t: TestApp, accountIds: readonly string[]): Promise<CableListeners> {
    const sessions = t.get(SessionTokens);
    const clients = await Promise.all(
      accountIds.map(async (accountId) => ({
        accountId,
        token: (await sessions.issue(accountId)).token,
      })),
    );
    const url = `${t.baseUrl!.replace(/^http/, 'ws')}/cable`;
    const worker = new Worker(new URL('./sockets-thread.js', import.meta.url), {
      workerData: { url, clients },
    });
    const listeners = new CableListeners(worker, accountIds);
    await new Promise<void>((resolve, reject) => {
      const settle = (message: { connected?: number; error?: string }) => {
        if (message.connected === undefined && message.error === undefined) return;
        worker.off('message', settle);
        if (message.error !== undefined) reject(new Error(`sockets: ${message.error}`));
        else resolve();
      };
      worker.on('message', settle);
      worker.once('error', reject);
    }).catch(async (error: unknown) => {
      await worker.terminate();
      throw error;
    });
    return listeners;
  }

  /** Frames of this event type, in arrival order. */
  of(eventType: string): Frame[] {
    return this.frames.items.filter((frame) => frame.eventType === eventType);
  }

  /** Resolves true once `count` frames of the event type arrived, false at the deadline. */
  waitFor(eventType: string, count: number, deadline: number): Promise<boolean> {
    return this.frames.untilCount(0, (frame) => frame.eventType === eventType, count, deadline);
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      const done = (message: { closed?: boolean }) => {
        if (message.closed) resolve();
      };
      this.worker.on('message', done);
      this.worker.once('exit', () => resolve());
    });
    this.worker.postMessage({ close: true });
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    await this.worker.terminate();
  }
}
