import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { auditActorOf } from '@platform/audit';
import type { AuthenticatedRequest } from '../access/principal.js';

/**
 * The audit actor of an authenticated request, like the audit library's `CurrentActor`. The
 * audit library imports this one, so its decorator may not exist yet while identity's
 * controllers are defined; this one looks `auditActorOf` up per request instead.
 */
export const RequestActor = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  auditActorOf(context.switchToHttp().getRequest<AuthenticatedRequest>()),
);
