import { Module } from '@nestjs/common';
import { ProjectsReadModule } from '@platform/identity';
import { WebhookEventsModule } from '@platform/webhooks';
import { AppEventsWatcher } from './app-events.watcher.js';

/** The worker's watch of apps for webhook events (APPS_KUBECONFIG; nothing when unset). */
@Module({
  imports: [WebhookEventsModule, ProjectsReadModule],
  providers: [AppEventsWatcher],
  exports: [AppEventsWatcher],
})
export class AppEventsModule {}
