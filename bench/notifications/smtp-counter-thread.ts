import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { SMTPServer } from 'smtp-server';

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
const HEAD_LIMIT = 16_384;

/** The Subject header of a message head (unfolded), or '' without one. */
function subjectOf(head: string): string {
  const end = head.indexOf('\r\n\r\n');
  const headers = end === -1 ? head : head.slice(0, end);
  const found = /^Subject:[ \t]*(.*(?:\r\n[ \t].*)*)/im.exec(headers);
  return found ? found[1].replace(/\r\n(?=[ \t])/g, '') : '';
}

const recipients = new Set<string>();
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  disableReverseLookup: true,
  logger: false,
  maxClients: 1000,
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    const capture = capturing;
    let head = '';
    stream.on('end', () => {
      count += 1;
      const to = session.envelope.rcptTo.map((rcpt) => rcpt.address);
      for (const address of to) recipients.add(address);
      if (timing) arrivals.push([Date.now(), to, subjectOf(head)]);
      if (capture) parentPort!.postMessage({ mail: { to, raw: Buffer.concat(chunks).toString() } });
      callback();
    });
    if (!capture && !timing) {
      stream.resume();
      return;
    }
    stream.on('data', (chunk: Buffer) => {
      if (capture) chunks.push(chunk);
      if (timing && head.length < HEAD_LIMIT && !head.includes('\r\n\r\n'))
        head += chunk.toString('latin1');
    });
  },
});
parentPort!.on('message', (message: { capture?: boolean }) => {
  if (typeof message.capture === 'boolean') capturing = message.capture;
});
server.listen(0, '127.0.0.1', () => {
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  parentPort!.postMessage({ port });
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
