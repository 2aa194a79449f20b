import { Module } from '@nestjs/common';
import { AppRoutesModule } from './apps/app-routes.module.js';
import { AppsCoreModule } from './apps-core.module.js';
import { WorkspacesModule } from './workspaces/workspaces.module.js';

/**
 * Apps and workspaces over the apps cluster (APPS_KUBECONFIG, 4-cloud-resources.md): apps are
 * Flux HelmReleases of a project, workspaces Groupware objects of an organization, both
 * reached with the operator runtime's client. One module per area.
 */
@Module({
  imports: [AppsCoreModule, AppRoutesModule, WorkspacesModule],
  exports: [AppsCoreModule, AppRoutesModule],
})
export class AppsModule {}
