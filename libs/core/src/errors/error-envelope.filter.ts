import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Response } from 'express';
import type { RequestWithContext } from '../context/request-context.js';
import { AppException } from './app-exception.js';
import { sendError, toAppException } from './error-response.js';

/** The one place where HTTP errors are turned into the error envelope. */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(error: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw error;
    const request = host.switchToHttp().getRequest<RequestWithContext>();
    const response = host.switchToHttp().getResponse<Response>();
    const exception = toAppException(error, request);
    if (exception.status >= 500 && !(error instanceof AppException && error.status < 500)) {
      const cause = exception.cause ?? error;
      this.logger.error(
        `${request.method} ${request.path} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
        cause instanceof Error ? cause.stack : undefined,
      );
    }
    sendError(exception, request, response);
  }
}
