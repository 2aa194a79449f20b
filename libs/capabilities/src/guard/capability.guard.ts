import { CanActivate, ExecutionContext, Injectable, OnModuleInit } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type AuthenticatedRequest, ProjectReadAhead } from '@platform/identity';
import { capabilityNotEnabled } from '../capabilities-exception.js';
import { CapabilitiesService } from '../catalog/capabilities.service.js';
import { isEnabled, type KindSet } from '../catalog/kinds.js';
import {
  CAPABILITY_REQUIREMENT,
  type CapabilityRequirement,
} from './requires-capability.decorator.js';

/** What the project has Available of a feature, read while the caller was authenticated. */
interface AvailabilityRead {
  projectId: string;
  feature: string;
  available: Promise<KindSet>;
}

type RequestWithAvailability = AuthenticatedRequest & { capabilityRead?: AvailabilityRead };

const requirementOf = (reflector: Reflector, context: ExecutionContext) =>
  reflector.getAllAndOverride<CapabilityRequirement | undefined>(CAPABILITY_REQUIREMENT, [
    context.getHandler(),
    context.getClass(),
  ]);

/**
 * Starts the availability read of a capability route while the AccessGuard authenticates the
 * caller (one provider of the module: guards are instantiated once per module that uses them).
 */
@Injectable()
export class CapabilityReadAhead implements OnModuleInit {
  constructor(
    private readonly reflector: Reflector,
    private readonly capabilities: CapabilitiesService,
    private readonly readAhead: ProjectReadAhead,
  ) {}

  onModuleInit(): void {
    this.readAhead.register((projectId, context, request: RequestWithAvailability) => {
      const requirement = requirementOf(this.reflector, context);
      if (!requirement) return;
      const available = this.capabilities.available(projectId, requirement.feature);
      // Unread when the caller fails authentication (the project may not even exist).
      available.catch(() => undefined);
      request.capabilityRead = { projectId, feature: requirement.feature, available };
    });
  }
}

/**
 * Checks what the project has Available, read fresh on every request: the read starts while
 * the AccessGuard authenticates the caller (`CapabilityReadAhead`) and is looked at only here,
 * after the caller passed it.
 */
@Injectable()
export class CapabilityGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly capabilities: CapabilitiesService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const requirement = requirementOf(this.reflector, context);
    if (!requirement) return true;
    const request = context.switchToHttp().getRequest<RequestWithAvailability>();
    const projectId = request.principal?.projectId;
    if (!projectId) throw new Error('@RequiresCapability needs a project-scoped route');
    const read = request.capabilityRead;
    const available = await (read?.projectId === projectId && read.feature === requirement.feature
      ? read.available
      : this.capabilities.available(projectId, requirement.feature));
    if (!isEnabled(available, requirement.kind)) {
      throw capabilityNotEnabled(requirement.feature, requirement.kind);
    }
    return true;
  }
}
