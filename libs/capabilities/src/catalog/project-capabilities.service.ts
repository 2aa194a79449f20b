import type { ProjectDetailResponseDto } from '../capabilities.openapi.js';
import { Injectable } from '@nestjs/common';
import { type Principal, ProjectsRepository, projectView } from '@platform/identity';
import { CapabilitiesErrorCode, CapabilitiesException } from '../capabilities-exception.js';
import { CapabilitiesRepository } from './capabilities.repository.js';
import { concreteKinds, effectiveKinds } from './kinds.js';
import { ProjectDetailSections } from './project-detail-sections.js';

/** Projects as Axis B sees them: tenancy-checked, with what they may create now. */
@Injectable()
export class ProjectCapabilitiesService {
  constructor(
    private readonly projects: ProjectsRepository,
    private readonly repository: CapabilitiesRepository,
    private readonly sections: ProjectDetailSections,
  ) {}

  /** The project, found only inside the organization (another tenant's id is 404). */
  async inOrganization(organizationId: string, projectId: string) {
    const project = await this.projects.findInOrganization(projectId, organizationId);
    if (!project) {
      throw new CapabilitiesException(CapabilitiesErrorCode.NotFound, 'Project not found');
    }
    return project;
  }

  /** The project detail with `effective_app_kinds`: the app kinds it may create right now. */
  async detail(projectId: string, principal: Principal): Promise<ProjectDetailResponseDto> {
    const [project, [apps], sections] = await Promise.all([
      this.projects.findById(projectId),
      this.repository.projectFeatures(projectId, 'apps'),
      this.sections.read(projectId, principal),
    ]);
    if (!project)
      throw new CapabilitiesException(CapabilitiesErrorCode.NotFound, 'Project not found');
    const effective = effectiveKinds(apps.granted ? apps.grant_kinds : undefined, apps.limit_kinds);
    return {
      ...projectView(project),
      effective_app_kinds: concreteKinds(effective, apps.available_kinds),
      ...sections,
    };
  }
}
