import { Module } from '@nestjs/common';
import { CapabilitiesModule } from '@platform/capabilities';
import { NotificationEndpointsModule } from '../endpoints/notification-endpoints.module.js';
import { AlertRoutesController } from './alert-routes.controller.js';
import { AlertRoutesRepository } from './alert-routes.repository.js';
import { AlertRoutesService } from './alert-routes.service.js';

/** Alert routes: their rules, and first-match routing. */
@Module({
  imports: [CapabilitiesModule, NotificationEndpointsModule],
  controllers: [AlertRoutesController],
  providers: [AlertRoutesRepository, AlertRoutesService],
  exports: [AlertRoutesRepository],
})
export class AlertRoutesModule {}
