/**
 * The Action Cable wire protocol (`actioncable-v1-json`), as the stock `@rails/actioncable`
 * client speaks it: the server sends typed frames (welcome, ping, confirm/reject, disconnect)
 * and messages `{identifier, message}`; the client sends commands `{command, identifier}`.
 */
export const CABLE_PATH = '/cable';
export const CABLE_PROTOCOL = 'actioncable-v1-json';
export const NOTIFICATIONS_CHANNEL = 'NotificationsChannel';

export type DisconnectReason =
  'unauthorized' | 'invalid_request' | 'server_restart' | 'server_error';

export type ServerFrame =
  | { type: 'welcome' }
  | { type: 'ping'; message: number }
  | { type: 'disconnect'; reason: DisconnectReason; reconnect: boolean }
  | { identifier: string; type: 'confirm_subscription' | 'reject_subscription' }
  | { identifier: string; message: unknown };

export interface CableCommand {
  command: string;
  identifier: string;
  data?: unknown;
}

/** The subprotocol answered in the handshake: ours when offered, otherwise none. */
export function selectProtocol(offered: Set<string>): string | false {
  return offered.has(CABLE_PROTOCOL) ? CABLE_PROTOCOL : false;
}

function frameText(data: unknown): string | null {
  if (typeof data === 'string') return data;
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data) && data.every((part) => Buffer.isBuffer(part))) {
    return Buffer.concat(data).toString('utf8');
  }
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return null;
}

/** A client command, or null for anything malformed (which the server ignores). */
export function parseCommand(data: unknown): CableCommand | null {
  const text = frameText(data);
  if (text === null) return null;
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) return null;
  const { command, identifier, data: payload } = frame as Record<string, unknown>;
  if (typeof command !== 'string' || typeof identifier !== 'string') return null;
  return { command, identifier, data: payload };
}

/** The `channel` named by a subscription identifier (itself a JSON string), or null. */
export function channelOf(identifier: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(identifier);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const channel = (parsed as Record<string, unknown>).channel;
  return typeof channel === 'string' ? channel : null;
}
