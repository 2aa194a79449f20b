import type { INestApplication } from '@nestjs/common';
import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface.js';
import { WsAdapter } from '@nestjs/platform-ws';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AppConfig } from '../config/app-config.js';
import {
  RequestContexts,
  requestIdFrom,
  type RequestWithContext,
} from '../context/request-context.js';
import type { JsonLogger } from '../logging/logger.js';
import { MetricsService } from '../metrics/metrics.service.js';
import {
  API_VERSION_HEADER,
  API_VERSION_POLICY,
  type ApiVersionPolicy,
  resolveApiVersion,
} from '../versioning/api-versions.js';
import { serveOpenApiDocument } from '../openapi/openapi.js';
import { readBodyAhead } from './request-body.js';

/** Route template for metrics labels; unmatched paths share one label to bound cardinality. */
function routeLabel(request: Request): string {
  const route = (request as unknown as { route?: { path?: unknown } }).route;
  return typeof route?.path === 'string' ? `${request.baseUrl}${route.path}` : 'unmatched';
}

/**
 * The Express-level part of the HTTP contract, in order: request id and API version for
 * every request (before the body is read, so even a malformed body gets both), access log
 * and metrics, the body read (started here, awaited before the handler: see request-body.ts),
 * then the async context that logs read the request id from. WebSocket gateways (the Action
 * Cable endpoint) share the HTTP server through the ws adapter.
 */
/**
 * Browser dashboards on the CORS_ORIGINS call with their session cookie (so the CSRF header is
 * allowed) or a token, and read the headers clients act on.
 */
export function corsOptions(origins: string[]): CorsOptions {
  return {
    origin: origins,
    credentials: true,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'API-Version',
      'X-Access-Token',
      'X-CSRF-Token',
      'X-Request-Id',
      'Idempotency-Key',
    ],
    exposedHeaders: [
      'Authorization',
      'API-Version',
      'X-Request-Id',
      'Retry-After',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Deprecation',
      'Sunset',
      'Link',
    ],
    maxAge: 600,
  };
}

/**
 * Adds the RateLimit headers (IETF draft: RateLimit-Limit, -Remaining, -Reset in seconds) of a
 * request that counted against a rate limit, as its head is written, whatever answers it.
 */
function sendRateLimitHeaders(request: RequestWithContext, response: Response): void {
  const writeHead = response.writeHead.bind(response) as (...a: unknown[]) => Response;
  response.writeHead = function (this: Response, ...args: unknown[]) {
    const state = request.context?.rateLimit;
    if (state && !this.headersSent) {
      this.setHeader('RateLimit-Limit', String(state.limit));
      this.setHeader('RateLimit-Remaining', String(state.remaining));
      this.setHeader('RateLimit-Reset', String(state.resetSeconds));
    }
    return writeHead(...args);
  } as Response['writeHead'];
}

export function configureHttpApp(
  app: INestApplication,
  config: AppConfig,
  logger: JsonLogger,
): void {
  const policy = app.get<ApiVersionPolicy>(API_VERSION_POLICY);
  const metrics = app.get(MetricsService);
  const server = app.getHttpAdapter().getInstance() as express.Express;
  server.disable('x-powered-by');
  // The client address (request.ip) comes from X-Forwarded-For only through trusted proxies.
  if (config.trustedProxies.length > 0) server.set('trust proxy', config.trustedProxies);
  app.useWebSocketAdapter(new WsAdapter(app));
  if (config.corsOrigins.length > 0) app.enableCors(corsOptions(config.corsOrigins));

  app.use((request: RequestWithContext, response: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdFrom(request.headers['x-request-id']);
    const resolution = resolveApiVersion(policy, request.headers[API_VERSION_HEADER.toLowerCase()]);
    request.context = {
      requestId,
      method: request.method,
      path: request.path,
      clientAddress: request.ip ?? null,
      userAgent: request.headers['user-agent'] ?? null,
      apiVersion: resolution.ok ? resolution.version.major : null,
      requestedApiVersion: resolution.ok ? undefined : resolution.requested,
    };
    response.setHeader('X-Request-Id', requestId);
    sendRateLimitHeaders(request, response);
    if (resolution.ok) response.setHeader(API_VERSION_HEADER, String(resolution.version.major));
    response.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeLabel(request);
      metrics.observeHttp(request.method, route, response.statusCode, seconds);
      // The route template names the operation; the logger redacts the credentials some paths
      // carry (`/invite/[redacted]`, `/alerts/ack/[redacted]`), and the query is never logged.
      logger.pino.info(
        {
          request_id: requestId,
          method: request.method,
          path: request.path,
          route,
          operation: request.context?.operation,
          status: response.statusCode,
          duration_ms: Math.round(seconds * 1000 * 10) / 10,
        },
        'request',
      );
    });
    next();
  });

  app.use(readBodyAhead);

  app.use((request: RequestWithContext, _response: Response, next: NextFunction) => {
    if (request.context) RequestContexts.run(request.context, next);
    else next();
  });

  serveOpenApiDocument(app, config);
}
