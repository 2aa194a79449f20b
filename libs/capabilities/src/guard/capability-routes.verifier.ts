import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { type AccessPolicy, declaredRoutes } from '@platform/identity';
import {
  CAPABILITY_REQUIREMENT,
  type CapabilityRequirement,
} from './requires-capability.decorator.js';

/** Refuses to start while a capability-guarded route is not project-scoped. */
@Injectable()
export class CapabilityRoutesVerifier implements OnApplicationBootstrap {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onApplicationBootstrap(): void {
    const wrong = declaredRoutes(this.discovery, this.scanner, this.reflector).filter(
      (route) =>
        this.reflector.getAllAndOverride<CapabilityRequirement | undefined>(
          CAPABILITY_REQUIREMENT,
          route.targets,
        ) && (route.policy as AccessPolicy | undefined)?.scope !== 'project',
    );
    if (wrong.length > 0) {
      throw new Error(
        `@RequiresCapability on routes that are not project-scoped: ${wrong.map((r) => `${r.controller}.${r.handler}`).join(', ')}`,
      );
    }
  }
}
