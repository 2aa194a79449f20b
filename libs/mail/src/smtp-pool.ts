import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { parseConnectionUrl } from 'nodemailer/lib/shared';

export interface SmtpPoolOptions {
  /** smtp:// or smtps:// URL, credentials in its user info. */
  url: string;
  /** Connections kept open and shared by concurrent sends. */
  maxConnections: number;
  /** An unused connection is closed after this long; servers drop idle sessions anyway. */
  idleTimeoutMs?: number;
}

export interface SmtpEnvelope {
  from: string;
  to: string[];
}

type SmtpError = Error & { code?: string; responseCode?: number };

interface Pending {
  envelope: SmtpEnvelope;
  raw: string;
  /** Sent once already over a connection the server had closed meanwhile. */
  retried: boolean;
  resolve: (response: string) => void;
  reject: (error: Error) => void;
}

interface Pooled {
  connection: SMTPConnection;
  messages: number;
  busy: boolean;
  gone: boolean;
  idleTimer: NodeJS.Timeout | null;
}

const CONNECTION_ERRORS = new Set(['ECONNECTION', 'ESOCKET', 'ETIMEDOUT']);

/** The connection went away under the message rather than the server refusing it. */
function isConnectionError(error: SmtpError): boolean {
  return error.responseCode === 421 || CONNECTION_ERRORS.has(error.code ?? '');
}

/**
 * A pool of nodemailer SMTP connections: up to `maxConnections` sessions stay open and each
 * sends one message after the other (MAIL FROM, RCPT TO, DATA per message, no handshake).
 * A message the server refuses fails alone and its session is reset and reused; a message
 * whose reused session turns out to be closed by the server is sent once more on a fresh one.
 */
export class SmtpPool {
  private readonly options: SMTPConnection.Options & {
    auth?: { user: string; pass: string };
  };
  private readonly maxConnections: number;
  private readonly idleTimeoutMs: number;
  private readonly queue: Pending[] = [];
  private readonly idle: Pooled[] = [];
  private readonly all = new Set<Pooled>();
  private opening = 0;
  private closed = false;

  constructor(options: SmtpPoolOptions) {
    const parsed = parseConnectionUrl(options.url);
    this.options = {
      ...(parsed as SMTPConnection.Options),
      auth: parsed.auth,
      logger: false,
    };
    this.maxConnections = Math.max(1, options.maxConnections);
    this.idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
  }

  /** Resolves with the server's final reply once it accepted the message. */
  send(envelope: SmtpEnvelope, raw: string): Promise<string> {
    if (this.closed) return Promise.reject(new Error('SMTP pool is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ envelope, raw, retried: false, resolve, reject });
      this.pump();
    });
  }

  /** Closes idle sessions now and busy ones after their message; queued ones fail. */
  close(): void {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new Error('SMTP pool is closed'));
    for (const pooled of this.idle.splice(0)) this.retire(pooled, true);
  }

  private pump(): void {
    while (this.queue.length > 0 && this.idle.length > 0) {
      this.dispatch(this.idle.pop()!, this.queue.shift()!);
    }
    const wanted = Math.min(
      this.queue.length - this.opening,
      this.maxConnections - this.all.size - this.opening,
    );
    for (let i = 0; i < wanted; i += 1) this.open();
  }

  private open(): void {
    this.opening += 1;
    const connection = new SMTPConnection(this.options);
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      this.opening -= 1;
      connection.close();
      // With no session left, nothing can be sent: the waiting messages fail (and retry).
      // Otherwise the open sessions work through the queue.
      if (this.all.size === 0 && this.opening === 0) {
        for (const pending of this.queue.splice(0)) pending.reject(error);
      }
    };
    const closedEarly = () => fail(new Error('SMTP connection closed while opening'));
    connection.once('error', fail);
    connection.once('end', closedEarly);
    connection.connect((error?: Error | null) => {
      if (error) return fail(error);
      if (settled) return;
      const ready = () => {
        if (settled) return;
        settled = true;
        this.opening -= 1;
        connection.removeListener('error', fail);
        connection.removeListener('end', closedEarly);
        this.adopt(connection);
      };
      if (this.options.auth && connection.allowsAuth) {
        connection.login(this.options.auth, (loginError?: Error | null) =>
          loginError ? fail(loginError) : ready(),
        );
      } else {
        ready();
      }
    });
  }

  private adopt(connection: SMTPConnection): void {
    const pooled: Pooled = { connection, messages: 0, busy: false, gone: false, idleTimer: null };
    this.all.add(pooled);
    // A session the server ends (idle timeout, shutdown) leaves the pool; errors end it too.
    connection.on('error', () => this.retire(pooled, false));
    connection.on('end', () => this.retire(pooled, false));
    if (this.closed) return this.retire(pooled, true);
    this.release(pooled);
  }

  private dispatch(pooled: Pooled, pending: Pending): void {
    pooled.busy = true;
    const reused = pooled.messages > 0;
    pooled.messages += 1;
    pooled.connection.send(pending.envelope, pending.raw, (error, info) => {
      pooled.busy = false;
      if (!error) {
        pending.resolve(info?.response ?? '');
        return this.release(pooled);
      }
      const smtpError = error as SmtpError;
      if (!isConnectionError(smtpError) && !pooled.gone) {
        // The server refused this message; the session itself is fine once reset.
        pending.reject(error);
        pooled.busy = true;
        pooled.connection.reset((resetError) => {
          pooled.busy = false;
          if (resetError) this.retire(pooled, true);
          else this.release(pooled);
        });
        return;
      }
      this.retire(pooled, false);
      pooled.connection.close();
      if (reused && !pending.retried && !this.closed) {
        pending.retried = true;
        this.queue.unshift(pending);
        this.pump();
      } else {
        pending.reject(error);
      }
    });
  }

  private release(pooled: Pooled): void {
    if (pooled.gone) return;
    if (this.closed) return this.retire(pooled, true);
    const next = this.queue.shift();
    if (next) return this.dispatch(pooled, next);
    this.idle.push(pooled);
    if (pooled.idleTimer) pooled.idleTimer.refresh();
    else {
      pooled.idleTimer = setTimeout(() => {
        if (!pooled.busy) this.retire(pooled, true);
      }, this.idleTimeoutMs);
      pooled.idleTimer.unref();
    }
  }

  private retire(pooled: Pooled, quit: boolean): void {
    if (pooled.gone) return;
    pooled.gone = true;
    if (pooled.idleTimer) clearTimeout(pooled.idleTimer);
    this.all.delete(pooled);
    const at = this.idle.indexOf(pooled);
    if (at >= 0) this.idle.splice(at, 1);
    if (quit) {
      if (pooled.busy) pooled.connection.close();
      else pooled.connection.quit();
    }
    if (!this.closed && this.queue.length > 0) this.pump();
  }
}
