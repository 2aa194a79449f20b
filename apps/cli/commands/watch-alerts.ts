import WebSocket from 'ws';
import type { CommandContext } from '../command.js';
import { CliError, EXIT, NotLoggedInError } from '../errors.js';

/** The Action Cable protocol the API speaks on /cable (see the notifications realtime module). */
const CABLE_PROTOCOL = 'actioncable-v1-json';
const IDENTIFIER = JSON.stringify({ channel: 'NotificationsChannel' });

type Frame = { type?: string; identifier?: string; message?: unknown; reason?: string };

/**
 * Lists again each time a notification reaches the user over the API's cable: the cable carries
 * the user's notifications (alerts routed to them in-app), not every change of every alert.
 * Ends on interrupt (exit 0) or when the API closes the connection.
 */
export async function watchAlerts(context: CommandContext, list: () => Promise<void>) {
  const { apiUrl, token } = await context.credential();
  const url = new URL('/cable', apiUrl.replace(/^http/, 'ws'));
  url.searchParams.set('token', token);
  const socket = new WebSocket(url, [CABLE_PROTOCOL]);
  let changes = Promise.resolve();
  const closed = new Promise<void>((resolve, reject) => {
    socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as Frame;
      if (frame.type === 'welcome')
        socket.send(JSON.stringify({ command: 'subscribe', identifier: IDENTIFIER }));
      else if (frame.type === 'confirm_subscription')
        context.io.stderr('watching for notifications; Ctrl-C to stop\n');
      else if (frame.type === 'disconnect' && frame.reason === 'unauthorized')
        reject(new NotLoggedInError('the API refused the credentials on /cable'));
      else if (frame.identifier === IDENTIFIER && frame.message !== undefined)
        // One listing at a time, in the order the pushes came.
        changes = changes.then(list).catch(reject);
    });
    socket.on('unexpected-response', (_request, response) => {
      const status = response.statusCode ?? 0;
      const message = `the API refused the credentials on /cable (HTTP ${status})`;
      reject(status === 401 ? new NotLoggedInError(message) : new CliError(EXIT.apiError, message));
      socket.terminate();
    });
    socket.on('error', (error) => reject(new CliError(EXIT.apiError, `cable: ${error.message}`)));
    socket.on('close', () => resolve());
  });
  const interrupted = context.io.interrupted().then(() => socket.close());
  await Promise.race([closed, interrupted]);
  await changes;
}
