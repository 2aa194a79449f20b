import { createHash, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { CoreErrorCode, CoreException } from '../errors/core-exception.js';

const BEARER = /^Bearer +(\S+) *$/i;

/** Equal-length digests, so the comparison takes as long whatever the caller sent. */
const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * `/metrics` behind METRICS_TOKEN: with one configured, only `Authorization: Bearer <token>`
 * is answered (401 with the error envelope otherwise); without, the route stays public.
 */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  private readonly expected: Buffer | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.expected = config.metricsToken ? digest(config.metricsToken) : null;
  }

  canActivate(context: ExecutionContext): boolean {
    if (this.expected === null) return true;
    const header = context.switchToHttp().getRequest<Request>().headers.authorization;
    const presented = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
    if (presented !== undefined && timingSafeEqual(digest(presented), this.expected)) return true;
    throw new CoreException(
      CoreErrorCode.Unauthorized,
      presented === undefined
        ? 'The metrics need an Authorization: Bearer header with METRICS_TOKEN'
        : 'The metrics bearer token is not METRICS_TOKEN',
      { headers: { 'WWW-Authenticate': 'Bearer' } },
    );
  }
}
