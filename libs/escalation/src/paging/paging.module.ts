import { Module } from '@nestjs/common';
import { MailModule } from '@platform/mail';
import { NotifyModule } from '@platform/notifications';
import { PageDeliveryProcessor } from './page-delivery.processor.js';
import { PagesRepository } from './pages.repository.js';

/** Delivery of escalation pages: in-app, e-mail, phone call and SMS. */
@Module({
  imports: [NotifyModule, MailModule],
  providers: [PagesRepository, PageDeliveryProcessor],
  exports: [PageDeliveryProcessor],
})
export class PagingModule {}
