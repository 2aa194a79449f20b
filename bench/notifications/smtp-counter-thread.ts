import type { AddressInfo } from 'node:net';
import { parentPort } from 'node:worker_threads';
import { SMTPServer } from 'smtp-server';

// Runs in a worker thread: the SMTP side of the benchmark stays off the event loop it measures.
let count = 0;
let reported = 0;
const recipients = new Set<string>();
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  disableReverseLookup: true,
  logger: false,
  maxClients: 1000,
  onData(stream, session, callback) {
    stream.on('end', () => {
      count += 1;
      for (const rcpt of session.envelope.rcptTo) recipients.add(rcpt.address);
      callback();
    });
    stream.resume();
  },
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
