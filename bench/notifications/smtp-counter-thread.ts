import { createServer, type AddressInfo, type Socket } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

// Runs in a worker thread: the SMTP side of the benchmark stays off the event loop it measures.
let count = 0;
let reported = 0;
/** While true, each message is also posted whole (set-up mails whose tokens the bench reads). */
let capturing = false;
/**
 * With `workerData.arrivals`, each message's acceptance (Date.now() at the end of DATA, as the
 * server answers 250), recipients and Subject, posted in batches with the count.
 */
const timing = (workerData as { arrivals?: boolean } | null)?.arrivals === true;
let arrivals: Array<[number, string[], string]> = [];
const recipients = new Set<string>();

const CRLF = Buffer.from('\r\n');
const END_OF_DATA = Buffer.from('\r\n.\r\n');
/** RFC 5321 4.5.3.1.4: a command line is at most 512 octets with its CRLF. */
const COMMAND_LIMIT = 512;
const DATA_LIMIT = 10 * 1024 * 1024;
const EHLO_REPLY =
  '250-bench-sink\r\n250-PIPELINING\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n' +
  `250 SIZE ${DATA_LIMIT}\r\n`;
const PATH = /^(?:MAIL FROM|RCPT TO):\s?<([^<>]*)>(?: .*)?$/i;

/** The Subject header of a message (unfolded), or '' without one. */
function subjectOf(message: Buffer): string {
  const end = message.indexOf('\r\n\r\n');
  const headers = message.toString('latin1', 0, end === -1 ? message.length : end);
  const found = /^Subject:[ \t]*(.*(?:\r\n[ \t].*)*)/im.exec(headers);
  return found ? found[1].replace(/\r\n(?=[ \t])/g, '') : '';
}

/** The message as sent: the transparency dots of RFC 5321 4.5.2 removed. */
function unstuffed(data: Buffer): string {
  return data
    .toString()
    .replace(/^\.\./, '.')
    .replace(/\r\n\.\./g, '\r\n.');
}

/**
 * One SMTP session (RFC 5321 with PIPELINING): the commands in order (MAIL, then RCPT, then
 * DATA; anything else out of place is refused with 503, unknown commands with 500), the message
 * read up to its CRLF.CRLF and accepted with 250. Replies to the commands of one read go out in
 * one write, as a pipelining server may send them.
 */
class Session {
  private pending: Buffer = Buffer.alloc(0);
  private inData = false;
  private from: string | null = null;
  private to: string[] = [];

  constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => socket.destroy());
    socket.write('220 bench-sink ESMTP\r\n');
  }

  private receive(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let replies = '';
    let offset = 0;
    for (;;) {
      if (this.inData) {
        // An empty message ends at once with ".\r\n"; any other after its last line's CRLF.
        const empty =
          this.pending[offset] === 0x2e &&
          this.pending[offset + 1] === 0x0d &&
          this.pending[offset + 2] === 0x0a;
        const end = empty ? offset - 2 : this.pending.indexOf(END_OF_DATA, offset);
        if (end === -1) {
          if (this.pending.length - offset > DATA_LIMIT) return void this.socket.destroy();
          break;
        }
        replies += this.accept(this.pending.subarray(offset, empty ? offset : end + 2));
        offset = end + END_OF_DATA.length;
        continue;
      }
      const end = this.pending.indexOf(CRLF, offset);
      if (end === -1) {
        if (this.pending.length - offset > COMMAND_LIMIT) return void this.socket.destroy();
        break;
      }
      const line = this.pending.toString('latin1', offset, end);
      offset = end + CRLF.length;
      const reply = this.command(line);
      replies += reply;
      if (reply.startsWith('221')) {
        this.socket.end(replies);
        return;
      }
    }
    this.pending = offset === this.pending.length ? Buffer.alloc(0) : this.pending.subarray(offset);
    if (replies) this.socket.write(replies);
  }

  private command(line: string): string {
    if (line.length + 2 > COMMAND_LIMIT) return '500 5.5.2 Line too long\r\n';
    const verb = line.slice(0, 4).toUpperCase();
    switch (verb) {
      case 'EHLO':
      case 'HELO':
        this.reset();
        return verb === 'EHLO' ? EHLO_REPLY : '250 bench-sink\r\n';
      case 'MAIL': {
        if (this.from !== null) return '503 5.5.1 Nested MAIL command\r\n';
        const path = PATH.exec(line);
        if (!path || !/^MAIL FROM:/i.test(line)) return '501 5.5.4 Syntax: MAIL FROM:<address>\r\n';
        this.from = path[1];
        return '250 2.1.0 OK\r\n';
      }
      case 'RCPT': {
        if (this.from === null) return '503 5.5.1 MAIL first\r\n';
        const path = PATH.exec(line);
        if (!path || !path[1] || !/^RCPT TO:/i.test(line))
          return '501 5.5.4 Syntax: RCPT TO:<address>\r\n';
        this.to.push(path[1]);
        return '250 2.1.5 OK\r\n';
      }
      case 'DATA':
        if (this.to.length === 0) return '503 5.5.1 RCPT first\r\n';
        this.inData = true;
        return '354 End data with <CR><LF>.<CR><LF>\r\n';
      case 'RSET':
        this.reset();
        return '250 2.0.0 OK\r\n';
      case 'NOOP':
        return '250 2.0.0 OK\r\n';
      case 'QUIT':
        return '221 2.0.0 Bye\r\n';
      default:
        return '500 5.5.2 Command not recognized\r\n';
    }
  }

  private accept(data: Buffer): string {
    const to = this.to;
    count += 1;
    for (const address of to) recipients.add(address);
    if (timing) arrivals.push([Date.now(), to, subjectOf(data)]);
    if (capturing) parentPort!.postMessage({ mail: { to, raw: unstuffed(data) } });
    this.reset();
    return '250 2.0.0 Accepted\r\n';
  }

  private reset(): void {
    this.inData = false;
    this.from = null;
    this.to = [];
  }
}

const server = createServer((socket) => new Session(socket));
parentPort!.on('message', (message: { capture?: boolean }) => {
  if (typeof message.capture === 'boolean') capturing = message.capture;
});
server.listen(0, '127.0.0.1', () => {
  parentPort!.postMessage({ port: (server.address() as AddressInfo).port });
});
setInterval(() => {
  if (count === reported) return;
  reported = count;
  const batch = arrivals;
  arrivals = [];
  parentPort!.postMessage({
    count,
    recipients: recipients.size,
    ...(timing ? { arrivals: batch } : {}),
  });
}, 20);
