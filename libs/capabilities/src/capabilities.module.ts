import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { IdentityModule } from '@platform/identity';
import { NotifyModule } from '@platform/notifications';
import { CapabilitiesController } from './catalog/capabilities.controller.js';
import { CapabilitiesRepository } from './catalog/capabilities.repository.js';
import { CapabilitiesService } from './catalog/capabilities.service.js';
import { ProjectCapabilitiesService } from './catalog/project-capabilities.service.js';
import { ProjectDetailSections } from './catalog/project-detail-sections.js';
import { CapabilityGuard, CapabilityReadAhead } from './guard/capability.guard.js';
import { CapabilityRoutesVerifier } from './guard/capability-routes.verifier.js';
import { FeatureRequestsController } from './requests/feature-requests.controller.js';
import { FeatureRequestsRepository } from './requests/feature-requests.repository.js';
import { FeatureRequestsService } from './requests/feature-requests.service.js';

/**
 * Axis B: the feature catalog, Limits, Grants, what is Available, feature requests, and the
 * `@RequiresCapability` guard other modules put on their project routes.
 */
@Module({
  imports: [DiscoveryModule, IdentityModule, NotifyModule],
  controllers: [CapabilitiesController, FeatureRequestsController],
  providers: [
    CapabilitiesRepository,
    CapabilitiesService,
    ProjectCapabilitiesService,
    ProjectDetailSections,
    FeatureRequestsRepository,
    FeatureRequestsService,
    CapabilityGuard,
    CapabilityReadAhead,
    CapabilityRoutesVerifier,
  ],
  exports: [CapabilitiesService, CapabilityGuard, ProjectDetailSections],
})
export class CapabilitiesModule {}
