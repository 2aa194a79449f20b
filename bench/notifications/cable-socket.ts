import { WebSocket } from 'ws';

const PROTOCOL = 'actioncable-v1-json';
const IDENTIFIER = JSON.stringify({ channel: 'NotificationsChannel' });

/** The notification a `created` push carries (the fields the benches read). */
export interface PushedNotification {
  id?: string;
  event_type?: string;
  payload?: Record<string, unknown>;
}

export interface BenchSocket {
  accountId: string;
  socket: WebSocket;
}

/**
 * Opens an Action Cable socket (`url` is `/cable` with the account's session token as `token`),
 * waits for the welcome, subscribes to NotificationsChannel and resolves on the confirmation.
 * `onCreated` runs, on arrival, for each `created` push the socket receives afterwards.
 */
export function connect(
  url: string,
  accountId: string,
  onCreated: (notification: PushedNotification) => void,
): Promise<BenchSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, [PROTOCOL]);
    const timer = setTimeout(() => reject(new Error(`socket ${accountId} timed out`)), 30_000);
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as {
        type?: string;
        message?: { event?: string; notification?: PushedNotification };
      };
      if (frame.type === 'ping') return;
      if (frame.type === 'welcome') {
        socket.send(JSON.stringify({ command: 'subscribe', identifier: IDENTIFIER }));
      } else if (frame.type === 'confirm_subscription') {
        clearTimeout(timer);
        resolve({ accountId, socket });
      } else if (frame.type === 'disconnect' || frame.type === 'reject_subscription') {
        clearTimeout(timer);
        reject(new Error(`socket ${accountId}: ${JSON.stringify(frame)}`));
      } else if (frame.message?.event === 'created') {
        onCreated(frame.message.notification ?? {});
      }
    });
  });
}
