import { Module } from '@nestjs/common';
import { AppsCoreModule } from '../apps-core.module.js';
import { AppReleases } from './app-releases.js';
import { AppsController } from './apps.controller.js';
import { AppsService } from './apps.service.js';

/** Apps: Flux HelmReleases, one chart source per kind. */
@Module({
  imports: [AppsCoreModule],
  controllers: [AppsController],
  providers: [AppsService, AppReleases],
  exports: [AppReleases],
})
export class AppRoutesModule {}
