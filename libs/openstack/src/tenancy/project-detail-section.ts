import { Injectable, OnModuleInit } from '@nestjs/common';
import { ProjectDetailSections } from '@platform/capabilities';
import { KeystoneProjectsRepository } from './keystone-projects.repository.js';

/**
 * Shows platform admins, on GET /projects/{id}, the Keystone project serving the project
 * (`openstack`, null until the first cloud call); other callers see nothing of it.
 */
@Injectable()
export class OpenStackProjectSection implements OnModuleInit {
  constructor(
    private readonly sections: ProjectDetailSections,
    private readonly repository: KeystoneProjectsRepository,
  ) {}

  onModuleInit(): void {
    this.sections.register(async (projectId, principal) => {
      if (!principal.account.isPlatformAdmin) return {};
      const row = await this.repository.find('project', projectId);
      return {
        openstack: row && {
          keystone_project_id: row.keystone_project_id,
          keystone_project_name: row.keystone_project_name,
          created_at: row.created_at,
        },
      };
    });
  }
}
