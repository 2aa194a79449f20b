import { Module } from '@nestjs/common';
import { NotifyModule } from '@platform/notifications';
import { EscalationJobs } from '../engine/escalation-jobs.js';
import { OutcomesBehind } from './outcomes-behind.js';
import { PageDeliveryProcessor } from './page-delivery.processor.js';
import { PagesRepository } from './pages.repository.js';
import { StepNotifications } from './step-notifications.js';

/** Delivery of escalation pages: in-app, e-mail, phone call and SMS. */
@Module({
  imports: [NotifyModule],
  providers: [
    PagesRepository,
    PageDeliveryProcessor,
    OutcomesBehind,
    StepNotifications,
    EscalationJobs,
  ],
  exports: [PageDeliveryProcessor, PagesRepository, StepNotifications],
})
export class PagingModule {}
