import { Module } from '@nestjs/common';
import { AppsCoreModule } from '../apps-core.module.js';
import { WorkspacesController } from './workspaces.controller.js';
import { WorkspacesService } from './workspaces.service.js';

/** Workspaces: Groupware objects of the groupware operator. */
@Module({
  imports: [AppsCoreModule],
  controllers: [WorkspacesController],
  providers: [WorkspacesService],
})
export class WorkspacesModule {}
