import { parentPort, workerData } from 'node:worker_threads';
import type { WebSocket } from 'ws';
import { connect, type PushedNotification } from '../notifications/cable-socket.js';

/**
 * Runs in a worker thread: the bench's Action Cable clients, off the event loop of the API
 * (which serves the sockets in the main thread). Connects every client, then timestamps each
 * `created` frame on arrival and posts them in batches every 20 ms as
 * `[client index, epoch ms, event type, alertname, alert id]`.
 */
interface Setup {
  url: string;
  clients: Array<{ accountId: string; token: string }>;
}

const CONNECT_CONCURRENCY = 100;
const { url, clients } = workerData as Setup;
const sockets: WebSocket[] = [];
let frames: Array<[number, number, string, string | null, string | null]> = [];
let closing = false;

const text = (value: unknown) => (typeof value === 'string' ? value : null);

function flush(): void {
  if (frames.length === 0) return;
  parentPort!.postMessage({ frames });
  frames = [];
}

async function open(): Promise<void> {
  for (let i = 0; i < clients.length; i += CONNECT_CONCURRENCY) {
    const batch = clients.slice(i, i + CONNECT_CONCURRENCY).map(({ accountId, token }, j) => {
      const index = i + j;
      const onCreated = (notification: PushedNotification) => {
        const at = Date.now();
        const payload = notification.payload ?? {};
        frames.push([
          index,
          at,
          notification.event_type ?? '',
          text(payload.alertname),
          text(payload.alert_id),
        ]);
      };
      return connect(`${url}?token=${encodeURIComponent(token)}`, accountId, onCreated);
    });
    for (const { socket } of await Promise.all(batch)) {
      sockets.push(socket);
      socket.on('close', (code, reason) => {
        if (!closing) parentPort!.postMessage({ dropped: `${code} ${reason.toString()}`.trim() });
      });
    }
  }
}

const timer = setInterval(flush, 20);
parentPort!.on('message', (message: { close?: boolean }) => {
  if (!message.close) return;
  closing = true;
  clearInterval(timer);
  flush();
  for (const socket of sockets) socket.terminate();
  parentPort!.postMessage({ closed: true });
  parentPort!.close();
});
open().then(
  () => parentPort!.postMessage({ connected: sockets.length }),
  (error: Error) => parentPort!.postMessage({ error: error.message }),
);
