import { HttpException } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { RequestWithContext } from '../context/request-context.js';
import { AppException } from './app-exception.js';
import { CoreErrorCode, CoreException } from './core-exception.js';
import type { ErrorEnvelope } from './error-envelope.js';
import { databaseInputError } from './database-input.js';
import { unavailableDependency } from './unavailable.js';

const CODE_BY_STATUS: Record<number, CoreErrorCode> = {
  400: CoreErrorCode.BadRequest,
  401: CoreErrorCode.Unauthorized,
  403: CoreErrorCode.Forbidden,
  404: CoreErrorCode.NotFound,
  405: CoreErrorCode.MethodNotAllowed,
  409: CoreErrorCode.Conflict,
  410: CoreErrorCode.Gone,
  413: CoreErrorCode.PayloadTooLarge,
  415: CoreErrorCode.UnsupportedMediaType,
  422: CoreErrorCode.ValidationFailed,
  429: CoreErrorCode.RateLimited,
  503: CoreErrorCode.ServiceUnavailable,
};

/**
 * Errors that body-parser and friends attach a `status` to (http-errors), most with a `type`;
 * a body that fails to decompress carries zlib's `code` (Z_DATA_ERROR, Z_BUF_ERROR) instead.
 */
interface ParserError {
  type?: string;
  status: number;
  code?: unknown;
}

function isParserError(error: unknown): error is ParserError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as ParserError).status === 'number' &&
    (typeof (error as ParserError).type === 'string' ||
      (error as { expose?: unknown }).expose === true)
  );
}

function parserException(error: ParserError): AppException | null {
  if (error.type === 'entity.parse.failed') {
    return new CoreException(CoreErrorCode.BadRequest, 'The request body is not valid JSON');
  }
  if (error.type === 'entity.too.large') {
    return new CoreException(CoreErrorCode.PayloadTooLarge, 'The request body is too large');
  }
  if (error.type === 'charset.unsupported' || error.type === 'encoding.unsupported') {
    return new CoreException(CoreErrorCode.UnsupportedMediaType, 'Unsupported body encoding');
  }
  if (typeof error.code === 'string' && error.code.startsWith('Z_')) {
    return new CoreException(
      CoreErrorCode.BadRequest,
      'The request body could not be decompressed as its Content-Encoding says',
    );
  }
  if (error.status >= 400 && error.status < 500) {
    return new CoreException(CoreErrorCode.BadRequest, 'The request body could not be read');
  }
  return null;
}

function httpExceptionMessage(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

/**
 * Maps anything thrown while serving a request onto a platform error. Only errors raised on
 * purpose keep their message; an unreadable body is a 4xx, an outage a 503, a value PostgreSQL
 * refuses as malformed or out of range a 400 (database-input.ts), and everything else an opaque
 * 500, so no stack or SQL leaks.
 */
export function toAppException(error: unknown, request: Request): AppException {
  if (error instanceof AppException) return error;
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status === 404 && /^Cannot [A-Z]+ /.test(error.message)) {
      return new CoreException(
        CoreErrorCode.NotFound,
        `No route for ${request.method} ${request.path}`,
      );
    }
    const code =
      CODE_BY_STATUS[status] ??
      (status >= 500 ? CoreErrorCode.InternalError : CoreErrorCode.BadRequest);
    const message = status >= 500 ? 'An unexpected error occurred' : httpExceptionMessage(error);
    return new AppException(status, code, message, { service: 'api' });
  }
  if (isParserError(error)) {
    const exception = parserException(error);
    if (exception) return exception;
  }
  const dependency = unavailableDependency(error);
  if (dependency) return serviceUnavailable(dependency, error);
  if (databaseInputError(error)) {
    return new CoreException(
      CoreErrorCode.BadRequest,
      'A value of the request is malformed, too long or out of range',
      { cause: error },
    );
  }
  return new CoreException(CoreErrorCode.InternalError, 'An unexpected error occurred', {
    retryable: true,
    cause: error,
  });
}

/** Seconds a client is asked to wait before retrying a request a dependency outage refused. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/** 503 `service_unavailable` for a request that needed a dependency that does not answer. */
export function serviceUnavailable(
  dependency: 'database' | 'redis',
  cause?: unknown,
): AppException {
  const what = dependency === 'database' ? 'The database' : 'The queue and cache service';
  return new CoreException(
    CoreErrorCode.ServiceUnavailable,
    `${what} is temporarily unavailable; retry shortly`,
    {
      retryable: true,
      cause,
      details: { dependency },
      headers: { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) },
    },
  );
}

export function errorEnvelope(exception: AppException, request: RequestWithContext): ErrorEnvelope {
  const context = request.context;
  const envelope: ErrorEnvelope = {
    code: exception.code,
    message: exception.message,
    source_service: exception.service ?? 'api',
    source_operation: context?.operation ?? `${request.method} ${request.path}`,
    retryable: exception.retryable,
    request_id: context?.requestId ?? '',
  };
  if (exception.details !== undefined) envelope.details = exception.details;
  if (context?.multiErrorEnvelope) {
    envelope.errors = exception.errors ?? [
      { code: exception.code, message: exception.message, status: exception.status },
    ];
  }
  return envelope;
}

export function sendError(
  exception: AppException,
  request: RequestWithContext,
  response: Response,
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  for (const [name, value] of Object.entries(exception.headers)) response.setHeader(name, value);
  response.status(exception.status).json(errorEnvelope(exception, request));
}
