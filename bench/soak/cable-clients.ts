import { WebSocket } from 'ws';

const PROTOCOL = 'actioncable-v1-json';
const IDENTIFIER = JSON.stringify({ channel: 'NotificationsChannel' });

interface Frame {
  type?: string;
  identifier?: string;
  message?: { event?: string };
}

/**
 * Action Cable clients on `/cable`, each subscribed to `NotificationsChannel` as the account
 * it was opened for (several tabs of the same person share an account). Counts the pushes
 * they receive per account and the sockets the server closed or dropped.
 */
export class CableClients {
  /** `created` pushes received, per account, since the start. */
  readonly pushes = new Map<string, number>();
  /** Sockets per account. */
  readonly sockets = new Map<string, number>();
  pushesTotal = 0;
  /** Sockets closed by anything but `close()`, with the code and reason seen. */
  readonly dropped: string[] = [];
  private readonly open: WebSocket[] = [];
  private closing = false;

  static async connect(
    baseUrl: string,
    accounts: Array<{ accountId: string; jwt: string }>,
    count: number,
  ): Promise<CableClients> {
    const clients = new CableClients();
    const cable = new URL('/cable', baseUrl.replace(/^http/, 'ws'));
    for (let i = 0; i < count; i += 10) {
      const batch = accounts.length
        ? Array.from(
            { length: Math.min(10, count - i) },
            (_, j) => accounts[(i + j) % accounts.length],
          )
        : [];
      await Promise.all(batch.map((account) => clients.subscribe(cable, account)));
    }
    return clients;
  }

  private subscribe(cable: URL, account: { accountId: string; jwt: string }): Promise<void> {
    const url = new URL(cable);
    url.searchParams.set('token', account.jwt);
    const socket = new WebSocket(url, [PROTOCOL]);
    this.open.push(socket);
    this.sockets.set(account.accountId, (this.sockets.get(account.accountId) ?? 0) + 1);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no subscription within 30 s')), 30_000);
      socket.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.on('close', (code, reason) => {
        if (!this.closing) this.dropped.push(`${code} ${reason.toString()}`.trim());
      });
      socket.on('message', (data: Buffer) => {
        const frame = JSON.parse(data.toString()) as Frame;
        if (frame.type === 'welcome') {
          socket.send(JSON.stringify({ command: 'subscribe', identifier: IDENTIFIER }));
        } else if (frame.type === 'confirm_subscription') {
          clearTimeout(timer);
          resolve();
        } else if (frame.type === 'reject_subscription' || frame.type === 'disconnect') {
          clearTimeout(timer);
          reject(new Error(`cable: ${JSON.stringify(frame)}`));
        } else if (frame.identifier === IDENTIFIER && frame.message?.event === 'created') {
          this.pushesTotal += 1;
          this.pushes.set(account.accountId, (this.pushes.get(account.accountId) ?? 0) + 1);
        }
      });
    });
  }

  close(): void {
    this.closing = true;
    for (const socket of this.open) socket.terminate();
  }
}
