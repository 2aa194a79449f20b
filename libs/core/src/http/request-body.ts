import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import express, { type NextFunction, type Request, type Response } from 'express';
import { from, Observable, switchMap } from 'rxjs';
import { toAppException } from '../errors/error-response.js';

const JSON_BODY_LIMIT = '1mb';

const BODY_READ = Symbol('request body read');

type RequestWithBodyRead = Request & { [BODY_READ]?: Promise<unknown> };

type Parser = (request: Request, response: Response, next: (error?: unknown) => void) => void;

const PARSERS: readonly Parser[] = [
  express.json({ limit: JSON_BODY_LIMIT }),
  express.urlencoded({ extended: false, limit: JSON_BODY_LIMIT }),
];

/**
 * Starts reading and parsing the body (JSON or form, up to JSON_BODY_LIMIT) without holding the
 * request up: routing and the guards go on at once, so the credential and tenant reads are on
 * their way to the database while the body arrives and is parsed, instead of after it. The
 * handler waits for the body (`RequestBodyInterceptor`), so a caller who fails a guard is refused
 * whatever its body, and a body that cannot be read is answered only after the guards passed.
 */
export function readBodyAhead(request: Request, response: Response, next: NextFunction): void {
  (request as RequestWithBodyRead)[BODY_READ] = new Promise<unknown>((settle) => {
    let index = 0;
    const parseNext = (error?: unknown) => {
      if (error !== undefined || index === PARSERS.length) settle(error);
      else PARSERS[index++](request, response, parseNext);
    };
    parseNext();
  });
  next();
}

/**
 * Lets a handler run once its request's body is parsed; an unreadable body (malformed JSON, too
 * large, unsupported charset) is the request's error, answered in the error envelope.
 */
@Injectable()
export class RequestBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<RequestWithBodyRead>();
    const read = request[BODY_READ];
    if (!read) return next.handle();
    return from(read).pipe(
      switchMap((error) => {
        if (error !== undefined) throw toAppException(error, request);
        return next.handle();
      }),
    );
  }
}
