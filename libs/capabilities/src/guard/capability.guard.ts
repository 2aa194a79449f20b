import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { AuthenticatedRequest } from '@platform/identity';
import { capabilityNotEnabled } from '../capabilities-exception.js';
import { CapabilitiesService } from '../catalog/capabilities.service.js';
import { isEnabled } from '../catalog/kinds.js';
import {
  CAPABILITY_REQUIREMENT,
  type CapabilityRequirement,
} from './requires-capability.decorator.js';

/** Checks what the project has Available, read fresh on every request. */
@Injectable()
export class CapabilityGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly capabilities: CapabilitiesService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const requirement = this.reflector.getAllAndOverride<CapabilityRequirement | undefined>(
      CAPABILITY_REQUIREMENT,
      [context.getHandler(), context.getClass()],
    );
    if (!requirement) return true;
    const projectId = context.switchToHttp().getRequest<AuthenticatedRequest>()
      .principal?.projectId;
    if (!projectId) throw new Error('@RequiresCapability needs a project-scoped route');
    const available = await this.capabilities.available(projectId, requirement.feature);
    if (!isEnabled(available, requirement.kind)) {
      throw capabilityNotEnabled(requirement.feature, requirement.kind);
    }
    return true;
  }
}
