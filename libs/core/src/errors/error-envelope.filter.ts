import { ArgumentsHost, Catch, ExceptionFilter, Logger, Optional } from '@nestjs/common';
import type { Response } from 'express';
import type { RequestWithContext } from '../context/request-context.js';
import { AppException } from './app-exception.js';
import { Dependencies } from '../health/dependencies.js';
import { databaseInputError } from './database-input.js';
import { sendError, toAppException } from './error-response.js';
import { unavailableDependency } from './unavailable.js';

/** The one place where HTTP errors are turned into the error envelope. */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  constructor(@Optional() private readonly dependencies?: Dependencies) {}

  catch(error: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw error;
    const request = host.switchToHttp().getRequest<RequestWithContext>();
    const response = host.switchToHttp().getResponse<Response>();
    const exception = toAppException(error, request);
    const dependency = unavailableDependency(error);
    const refusedInput = databaseInputError(error);
    if (dependency) {
      // An outage is logged once by Dependencies, not once per refused request.
      this.dependencies?.reportFailure(dependency, error);
    } else if (refusedInput) {
      // The caller gets a 400, but the check that should have refused the value first is missing.
      this.logger.warn(
        `${request.method} ${request.path} (${request.context?.operation ?? 'no route'}): PostgreSQL refused a value of the request (SQLSTATE ${refusedInput.sqlState}: ${refusedInput.message}); validate it before the database`,
      );
    } else if (
      exception.status >= 500 &&
      !(error instanceof AppException && exception.code !== 'internal_error')
    ) {
      // Unexpected failures only: an exception raised on purpose (a 503 of a readiness probe,
      // say) says all there is in its envelope.
      const cause = exception.cause ?? error;
      this.logger.error(
        `${request.method} ${request.path} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
        cause instanceof Error ? cause.stack : undefined,
      );
    }
    sendError(exception, request, response);
  }
}
