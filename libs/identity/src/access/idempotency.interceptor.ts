import { createHash } from 'node:crypto';
import {
  type CallHandler,
  type ExecutionContext,
  HttpStatus,
  Inject,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants.js';
import { CoreErrorCode, CoreException } from '@platform/core';
import { REDIS } from '@platform/queue';
import type { Redis } from 'ioredis';
import { catchError, from, map, mergeMap, type Observable, of, throwError } from 'rxjs';
import type { AuthenticatedRequest } from './principal.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** How long an answer is kept for the key's retries. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** How long a key stays claimed by a request still running (or whose process died). */
const RUNNING_TTL_SECONDS = 60;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

interface Entry {
  state: 'running' | 'done';
  /** The request the key was first used with: route, path and body. */
  fingerprint: string;
  value?: unknown;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * `Idempotency-Key` on creates (POST routes answering 201), as Stripe and the IETF draft have
 * it: the first request with a key runs and its answer is kept 24 hours; a retry with the same
 * key and the same request gets that answer again without running (`Idempotent-Replayed:
 * true`); the same key with another request is 422 `idempotency_key_reused`; a retry while the
 * first still runs is 409 `idempotency_key_in_use`. Keys belong to the caller (account and
 * token or session), so two callers never share one. A request that fails keeps nothing, so it
 * can be retried with its key.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers[IDEMPOTENCY_HEADER.toLowerCase()];
    if (header === undefined || request.method !== 'POST') return next.handle();
    const status: unknown = Reflect.getMetadata(HTTP_CODE_METADATA, context.getHandler());
    if (status !== undefined && status !== HttpStatus.CREATED) return next.handle();
    const principal = request.principal;
    if (!principal) return next.handle();
    const key = Array.isArray(header) ? header[0] : header;
    if (Array.isArray(header) || !KEY_PATTERN.test(key)) throw invalidKey();

    const caller = `${principal.account.id}:${principal.token?.id ?? principal.session?.id ?? ''}`;
    const route = `${request.method} ${(request.route as { path?: string } | undefined)?.path}`;
    const redisKey = `idempotency:${sha256(`${caller}\n${route}\n${key}`)}`;
    const fingerprint = sha256(`${request.originalUrl}\n${JSON.stringify(request.body ?? null)}`);
    return from(this.claim(redisKey, fingerprint)).pipe(
      mergeMap((prior) => {
        if (prior) {
          context
            .switchToHttp()
            .getResponse<{ setHeader(n: string, v: string): void }>()
            .setHeader('Idempotent-Replayed', 'true');
          return of(prior.value);
        }
        return next.handle().pipe(
          // Kept before the answer leaves, so a retry arriving right after it is a replay. The
          // create happened: a failure to keep its answer must not turn it into an error.
          mergeMap((value: unknown) =>
            from(
              this.keep(redisKey, { state: 'done', fingerprint, value }).catch(() => undefined),
            ).pipe(map(() => value)),
          ),
          catchError((error: unknown) =>
            from(this.redis.del(redisKey)).pipe(mergeMap(() => throwError(() => error))),
          ),
        );
      }),
    );
  }

  /** Claims the key for this request (null), or answers the kept answer of an earlier one. */
  private async claim(redisKey: string, fingerprint: string): Promise<Entry | null> {
    const running: Entry = { state: 'running', fingerprint };
    const set = await this.redis.set(
      redisKey,
      JSON.stringify(running),
      'EX',
      RUNNING_TTL_SECONDS,
      'NX',
    );
    if (set === 'OK') return null;
    const stored = await this.redis.get(redisKey);
    // Gone between the two calls (expired or failed): this request may run.
    if (stored === null) return this.claim(redisKey, fingerprint);
    const entry = JSON.parse(stored) as Entry;
    if (entry.fingerprint !== fingerprint) {
      throw new CoreException(
        CoreErrorCode.IdempotencyKeyReused,
        'This Idempotency-Key was used with another request; use a new key for a new request',
      );
    }
    if (entry.state === 'running') {
      throw new CoreException(
        CoreErrorCode.IdempotencyKeyInUse,
        'A request with this Idempotency-Key is still running; retry once it has answered',
        { retryable: true, headers: { 'Retry-After': '1' } },
      );
    }
    return entry;
  }

  private async keep(redisKey: string, entry: Entry): Promise<void> {
    await this.redis.set(redisKey, JSON.stringify(entry), 'EX', IDEMPOTENCY_TTL_SECONDS);
  }
}

function invalidKey(): Error {
  return new CoreException(
    CoreErrorCode.ValidationFailed,
    'Idempotency-Key must be 1 to 255 visible ASCII characters',
    {
      details: {
        fields: [
          { field: IDEMPOTENCY_HEADER, messages: ['must be 1 to 255 visible ASCII characters'] },
        ],
      },
    },
  );
}
