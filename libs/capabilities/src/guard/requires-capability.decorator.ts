import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { CapabilityGuard } from './capability.guard.js';

/** The features of the catalog; their kinds and tiers are data in the `feature` table. */
export type FeatureKey = 'apps' | 'dns' | 'object_storage' | 'kubernetes' | 'openstack' | 'alerts';

export interface CapabilityRequirement {
  feature: FeatureKey;
  /** A kind the route needs within the feature; omitted: any Available kind will do. */
  kind?: string;
}

export const CAPABILITY_REQUIREMENT = 'platform:capability-requirement';

/**
 * Axis B for a project-scoped route: answers 403 `<feature>_capability_not_enabled` unless
 * the project has the feature Available. It runs after the global AccessGuard, so a caller
 * who fails Axis A never learns about the project's capabilities.
 */
export const RequiresCapability = (
  feature: FeatureKey,
  kind?: string,
): MethodDecorator & ClassDecorator =>
  applyDecorators(
    SetMetadata(CAPABILITY_REQUIREMENT, { feature, kind } satisfies CapabilityRequirement),
    UseGuards(CapabilityGuard),
  );
