import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  StreamableFile,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';
import { Clock } from '../clock/clock.js';
import type { RequestWithContext } from '../context/request-context.js';
import { Envelope, EnvelopeMetadata, ListResult, RAW_RESPONSE } from './response-envelope.js';

/**
 * Wraps every success body in `{metadata, data}`; a 204 goes out without a body, and a
 * `StreamableFile` (a route that answers a page or a file instead of JSON) as it is.
 */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly clock: Clock,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const raw = this.reflector.getAllAndOverride<boolean>(RAW_RESPONSE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (raw) return next.handle();
    const http = context.switchToHttp();
    const request = http.getRequest<RequestWithContext>();
    const response = http.getResponse<Response>();
    return next
      .handle()
      .pipe(
        map((value: unknown) =>
          response.statusCode === 204
            ? undefined
            : value instanceof StreamableFile
              ? value
              : this.wrap(value, request),
        ),
      );
  }

  private wrap(value: unknown, request: RequestWithContext): Envelope<unknown> {
    const context = request.context;
    const metadata: EnvelopeMetadata = {
      organization_id: context?.organizationId ?? null,
      timestamp: this.clock.now().toISOString(),
    };
    if (context?.projectId) metadata.project_id = context.projectId;
    let data = value ?? null;
    if (value instanceof ListResult) {
      data = value.items;
      metadata.count = value.items.length;
      if (value.total !== undefined) metadata.total = value.total;
    } else if (Array.isArray(value)) {
      metadata.count = value.length;
    }
    return { metadata, data };
  }
}
