import { Module } from '@nestjs/common';
import { CapabilitiesModule } from '@platform/capabilities';
import { AlertBundlesRepository } from '../dispatch/alert-bundles.repository.js';
import { MaintenanceWindowsController } from '../suppression/maintenance-windows.controller.js';
import { MaintenanceWindowsService } from '../suppression/maintenance-windows.service.js';
import { SilencesController } from '../suppression/silences.controller.js';
import { SilencesService } from '../suppression/silences.service.js';
import { SuppressionModule } from '../suppression/suppression.module.js';
import { AlertEventsRepository } from '../timeline/alert-events.repository.js';
import { AlertEventsController, AlertsController } from './alerts.controller.js';
import { AlertSearchTexts } from './alert-search-texts.js';
import { AlertsRepository } from './alerts.repository.js';
import { AlertsService } from './alerts.service.js';
import { AlertSearchTextsRepository } from './search-texts.repository.js';

/**
 * Alerts, their timeline and acknowledgements; silences and maintenance windows. Exports
 * `AlertsRepository` (`findViews`, the Alert resource), `AlertBundlesRepository` (whose
 * acknowledgement covers whom) and `SuppressionService`.
 */
@Module({
  imports: [CapabilitiesModule, SuppressionModule],
  controllers: [
    AlertsController,
    AlertEventsController,
    SilencesController,
    MaintenanceWindowsController,
  ],
  providers: [
    AlertBundlesRepository,
    AlertEventsRepository,
    AlertSearchTexts,
    AlertSearchTextsRepository,
    AlertsRepository,
    AlertsService,
    SilencesService,
    MaintenanceWindowsService,
  ],
  exports: [AlertsRepository, AlertEventsRepository, AlertBundlesRepository, SuppressionModule],
})
export class AlertsModule {}
