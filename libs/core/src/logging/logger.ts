import type { LoggerService } from '@nestjs/common';
import { pino, type Logger as Pino } from 'pino';
import type { LogLevel } from '../config/app-config.js';
import { RequestContexts } from '../context/request-context.js';
import { redactSecrets } from './redact.js';

/**
 * Structured JSON logs, one line per event, carrying the request id of the request being
 * served (taken from the async context) so a request can be followed across log lines.
 * Whatever is logged, through this class or its `pino`, has its secrets redacted first
 * (redact.ts).
 */
export class JsonLogger implements LoggerService {
  constructor(readonly pino: Pino) {}

  static create(service: string, level: LogLevel, destination?: NodeJS.WritableStream): JsonLogger {
    return new JsonLogger(
      pino(
        {
          level,
          base: { service },
          messageKey: 'message',
          timestamp: pino.stdTimeFunctions.isoTime,
          formatters: { level: (label) => ({ level: label }) },
          hooks: {
            // Before pino formats anything: message, fields, nested objects and errors alike.
            logMethod(args, method) {
              const redacted = args.map((arg: unknown) => redactSecrets(arg));
              method.apply(this, redacted as Parameters<typeof method>);
            },
          },
          mixin: () => {
            const context = RequestContexts.current();
            return context ? { request_id: context.requestId } : {};
          },
        },
        destination ?? pino.destination({ sync: true }),
      ),
    );
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    // Nest passes (message, stack, context); a stack is a string containing a newline.
    const [maybeStack, ...others] = rest;
    if (typeof maybeStack === 'string' && maybeStack.includes('\n')) {
      this.write('error', message, others, { stack: maybeStack });
    } else {
      this.write('error', message, rest);
    }
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(
    level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace',
    message: unknown,
    rest: unknown[],
    extra: Record<string, unknown> = {},
  ): void {
    const context =
      typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    const fields: Record<string, unknown> = { ...extra };
    if (context) fields.context = context;
    if (message instanceof Error) {
      this.pino[level]({ ...fields, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.pino[level]({ ...fields, ...(message as Record<string, unknown>) });
    } else {
      this.pino[level](fields, String(message));
    }
  }
}
