import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import express, { type NextFunction, type Request, type Response } from 'express';
import { from, Observable, switchMap } from 'rxjs';
import { toAppException } from '../errors/error-response.js';
import { malformedIdParam, NOT_ID_PARAMS } from './id-param.js';
import { refuseBody, refuseContentEncoding, refuseParameters } from './input-rules.js';

const JSON_BODY_LIMIT = '1mb';

const BODY_READ = Symbol('request body read');

type RequestWithBodyRead = Request & { [BODY_READ]?: Promise<unknown> };

type Parser = (request: Request, response: Response, next: (error?: unknown) => void) => void;

const PARSERS: readonly Parser[] = [
  express.json({ limit: JSON_BODY_LIMIT }),
  express.urlencoded({ extended: false, limit: JSON_BODY_LIMIT }),
];

/**
 * Settles with the request's body error, or undefined once the body is parsed and passed the
 * input rules (input-rules.ts). A body in an encoding the API does not decode is not read: it is
 * drained, so the connection stays usable.
 */
function readBody(request: Request, response: Response): Promise<unknown> {
  return new Promise<unknown>((settle) => {
    const refused = refuseContentEncoding(request);
    if (refused) {
      request.resume();
      settle(refused);
      return;
    }
    let index = 0;
    const parseNext = (error?: unknown) => {
      if (error !== undefined) settle(error);
      else if (index === PARSERS.length) settle(refuseBody(request.body) ?? undefined);
      else PARSERS[index++](request, response, parseNext);
    };
    parseNext();
  });
}

/**
 * Starts reading and parsing the body (JSON or form, up to JSON_BODY_LIMIT) without holding the
 * request up: routing and the guards go on at once, so the credential and tenant reads are on
 * their way to the database while the body arrives and is parsed, instead of after it. The
 * handler waits for the body (`RequestInputInterceptor`), so a caller who fails a guard is refused
 * whatever its body, and a body that cannot be read is answered only after the guards passed.
 */
export function readBodyAhead(request: Request, response: Response, next: NextFunction): void {
  (request as RequestWithBodyRead)[BODY_READ] = readBody(request, response);
  next();
}

/**
 * The parsed body, once read (undefined when it could not be read: the handler's interceptor
 * answers that error). For the few guards that need the body, e.g. a create naming its project.
 */
export async function parsedBody(request: Request): Promise<unknown> {
  const read = (request as RequestWithBodyRead)[BODY_READ];
  if (read && (await read) !== undefined) return undefined;
  return request.body as unknown;
}

/**
 * Lets a handler run once its request's input passed the contract's rules: the path's ids are
 * UUIDs (404 otherwise, as for any id that names nothing), no path or query parameter holds a
 * NUL (422), and the body is parsed; an unreadable body (malformed JSON, too large, unsupported
 * charset or encoding) or one the input rules refuse (NUL characters, nesting) is the request's
 * error, answered in the error envelope.
 */
@Injectable()
export class RequestInputInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<RequestWithBodyRead>();
    const notIds = this.reflector.getAllAndOverride<string[] | undefined>(NOT_ID_PARAMS, [
      context.getHandler(),
      context.getClass(),
    ]);
    const refused =
      malformedIdParam(request.params, notIds) ??
      refuseParameters(request.params) ??
      refuseParameters(request.query);
    if (refused) throw refused;
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
