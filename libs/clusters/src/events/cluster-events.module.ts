import { Module } from '@nestjs/common';
import { ProjectsReadModule } from '@platform/identity';
import { WebhookEventsModule } from '@platform/webhooks';
import { ClusterEventsWatcher } from './cluster-events.watcher.js';

/** The worker's watch of Shoots for webhook events (GARDEN_KUBECONFIG; nothing when unset). */
@Module({
  imports: [WebhookEventsModule, ProjectsReadModule],
  providers: [ClusterEventsWatcher],
  exports: [ClusterEventsWatcher],
})
export class ClusterEventsModule {}
