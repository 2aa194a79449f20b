import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Clock } from '../clock/clock.js';
import type { RequestWithContext } from '../context/request-context.js';
import { CoreErrorCode, CoreException } from '../errors/core-exception.js';
import { MULTI_ERROR_ENVELOPE } from '../errors/error-envelope.js';
import { operationId } from '../http/operation-id.js';
import { API_VERSION_POLICY, type ApiVersionPolicy } from './api-versions.js';
import {
  DEPRECATION,
  type DeprecationNotice,
  deprecationHeaders,
  UNVERSIONED,
} from './deprecated.decorator.js';

/**
 * Runs first on every matched route: names the operation for error envelopes, refuses
 * unsupported or sunset API versions and announces deprecations. Being a global guard, it
 * runs before authentication, so a bad version is reported as such rather than as a 401.
 */
@Injectable()
export class ApiContractGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly clock: Clock,
    @Inject(API_VERSION_POLICY) private readonly policy: ApiVersionPolicy,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<RequestWithContext>();
    const response = context.switchToHttp().getResponse<Response>();
    const targets = [context.getHandler(), context.getClass()];
    if (request.context) {
      request.context.operation = operationId(context.getClass(), context.getHandler());
      if (this.reflector.getAllAndOverride<boolean>(MULTI_ERROR_ENVELOPE, targets))
        request.context.multiErrorEnvelope = true;
    }
    if (this.reflector.getAllAndOverride<boolean>(UNVERSIONED, targets)) return true;

    const now = this.clock.now();
    const major = request.context?.apiVersion ?? null;
    if (major === null) {
      const supported = this.policy.versions.filter((v) => !v.sunset || v.sunset > now);
      throw new CoreException(
        CoreErrorCode.UnsupportedApiVersion,
        `API-Version "${request.context?.requestedApiVersion ?? ''}" is not supported; supported versions: ${supported.map((v) => v.major).join(', ')}`,
      );
    }
    const version = this.policy.versions.find((v) => v.major === major);
    if (version?.sunset && version.sunset <= now) {
      const successor = version.successor ? `, use API-Version: ${version.successor}` : '';
      throw new CoreException(
        CoreErrorCode.Gone,
        `API version ${major} was sunset on ${version.sunset.toISOString()}${successor}`,
        {
          headers: {
            Link: `<${this.config.publicUrl}${request.originalUrl}>; rel="successor-version"`,
          },
        },
      );
    }

    const notice = this.reflector.getAllAndOverride<DeprecationNotice | undefined>(
      DEPRECATION,
      targets,
    );
    if (notice) {
      const headers = deprecationHeaders(notice);
      if (notice.sunset <= now) {
        throw new CoreException(
          CoreErrorCode.Gone,
          `This endpoint was sunset on ${notice.sunset.toISOString()}; see ${notice.guide}`,
          { headers },
        );
      }
      for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    }
    return true;
  }
}
