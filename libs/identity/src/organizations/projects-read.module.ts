import { Module } from '@nestjs/common';
import { ProjectsRepository } from './projects.repository.js';

/**
 * The projects repository on its own, for processes that look up a project's organization
 * without serving the identity routes (the worker, whose event watchers need it): IdentityModule
 * brings the routes, their guard and its start-up checks along.
 */
@Module({ providers: [ProjectsRepository], exports: [ProjectsRepository] })
export class ProjectsReadModule {}
