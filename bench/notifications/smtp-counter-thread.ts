import type { AddressInfo } from 'node:net';
import { parentPort } from 'node:worker_threads';
import { SMTPServer } from 'smtp-server';

// Runs in a worker thread: the SMTP side of the benchmark stays off the event loop it measures.
let count = 0;
let reported = 0;
/** While true, each message is also posted whole (set-up mails whose tokens the bench reads). */
let capturing = false;
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
    stream.on('end', () => {
      count += 1;
      const to = session.envelope.rcptTo.map((rcpt) => rcpt.address);
      for (const address of to) recipients.add(address);
      if (capture) parentPort!.postMessage({ mail: { to, raw: Buffer.concat(chunks).toString() } });
      callback();
    });
    if (capture) stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    else stream.resume();
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
  parentPort!.postMessage({ count, recipients: recipients.size });
}, 20);
