import { Module } from '@nestjs/common';
import { AppEventsModule } from '@platform/apps';
import { ClusterEventsModule } from '@platform/clusters';

/**
 * The worker's watches of the clusters the platform fronts, which tell organizations' webhooks
 * about their apps and Kubernetes clusters. Not job processors: kept out of
 * WorkerProcessorsModule, so integration tests that run the processors inside an API test app
 * do not watch as well unless they ask for it.
 */
@Module({ imports: [AppEventsModule, ClusterEventsModule] })
export class WorkerWatchersModule {}
