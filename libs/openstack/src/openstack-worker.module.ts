import { Module } from '@nestjs/common';
import { UPSTREAM_TIMEOUT_MS } from '@platform/cloud-core';
import { WebhookEventsModule } from '@platform/webhooks';
import { OPENSTACK_CALL_TIMEOUT_MS, OpenStackClient } from './client/openstack-client.js';
import {
  DEFAULT_SERVER_WATCH_POLL_MS,
  SERVER_WATCH_POLL_MS,
  ServerWatchProcessor,
} from './compute/server-watch.processor.js';
import { ServerWatchRepository } from './compute/server-watch.repository.js';

/**
 * The worker's side of OpenStack: the watch of servers created through the platform, which
 * tells organizations `server.active`. Its own client (and Keystone token cache): the worker
 * serves no routes, so it needs none of the API's tenancy or guards.
 */
@Module({
  imports: [WebhookEventsModule],
  providers: [
    { provide: OPENSTACK_CALL_TIMEOUT_MS, useValue: UPSTREAM_TIMEOUT_MS },
    { provide: SERVER_WATCH_POLL_MS, useValue: DEFAULT_SERVER_WATCH_POLL_MS },
    OpenStackClient,
    ServerWatchRepository,
    ServerWatchProcessor,
  ],
})
export class OpenStackWorkerModule {}
