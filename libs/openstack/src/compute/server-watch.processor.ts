import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import {
  APP_CONFIG,
  type AppConfig,
  Clock,
  forEachConcurrently,
  StartupTasks,
} from '@platform/core';
import { JobName, JobQueue, OnJob, QueueName } from '@platform/queue';
import { WebhookEvents } from '@platform/webhooks';
import { OpenStackClient } from '../client/openstack-client.js';
import {
  type PendingServer,
  type ServerWatchOutcome,
  ServerWatchRepository,
} from './server-watch.repository.js';

export const SERVER_WATCH_SCHEDULER_ID = 'openstack-server-watch';
/** How often pending servers are looked at (tests shorten it). */
export const SERVER_WATCH_POLL_MS = Symbol('SERVER_WATCH_POLL_MS');
export const DEFAULT_SERVER_WATCH_POLL_MS = 5000;
/** A server not settled this long after its create is no longer watched. */
export const SERVER_WATCH_MAX_MS = 60 * 60_000;
/** Settled rows are kept a week, for whoever wonders why an event came or did not. */
const SETTLED_RETENTION_MS = 7 * 86_400_000;
/** At most this many servers per poll, the oldest first; the rest wait for the next. */
const PENDING_LIMIT = 2000;
/** Keystone projects listed at the same time. */
const LIST_CONCURRENCY = 4;
/** Nova pages its lists (1000 servers by default); a project with more is read in pages. */
const MAX_PAGES = 50;

interface NovaServer {
  id: string;
  name?: string;
  status?: string;
}

interface NovaServerPage {
  servers: NovaServer[];
  servers_links?: Array<{ rel?: string; href?: string }>;
}

export interface ServerWatchRun {
  pending: number;
  settled: Record<ServerWatchOutcome, number>;
}

/**
 * The worker's watch of servers created through the platform (openstack_server_watch): every
 * few seconds a repeatable job reads the pending ones and lists each Keystone project's servers
 * once. A server ACTIVE is told to its organization as `server.active` (once, through the
 * webhooks' claim, however many polls or worker replicas see it) and settled; one in ERROR,
 * gone from Nova's list (deleted), or still building after an hour is settled untold. A
 * project whose list fails is looked at again on the next poll. Polls of one process do not
 * overlap (a slow Nova would pile them up); those of several replicas may, and the claim keeps
 * the event single.
 */
@Injectable()
export class ServerWatchProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger('server-watch');
  /** A poll of this process still running (Nova slow): the next ones leave it alone. */
  private polling = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SERVER_WATCH_POLL_MS) private readonly pollMs: number,
    private readonly clock: Clock,
    private readonly watch: ServerWatchRepository,
    private readonly openstack: OpenStackClient,
    private readonly events: WebhookEvents,
    private readonly jobs: JobQueue,
    private readonly startup: StartupTasks,
  ) {}

  /** Schedules the poll while OpenStack is configured, and unschedules it when no longer. */
  async onApplicationBootstrap(): Promise<void> {
    await this.startup.run(
      'openstack server watch schedule',
      async () => {
        const queue = this.jobs.queue(QueueName.Maintenance);
        await this.jobs.withRedis(async () => {
          if (!this.config.openstack) {
            await queue.removeJobScheduler(SERVER_WATCH_SCHEDULER_ID);
            return;
          }
          await queue.upsertJobScheduler(
            SERVER_WATCH_SCHEDULER_ID,
            { every: this.pollMs },
            {
              name: JobName.OpenStackServerWatch,
              data: {},
              opts: { removeOnComplete: true, removeOnFail: 100 },
            },
          );
        });
      },
      { againWhenBack: 'redis' },
    );
  }

  @OnJob(JobName.OpenStackServerWatch)
  async poll(): Promise<ServerWatchRun> {
    const run: ServerWatchRun = {
      pending: 0,
      settled: { active: 0, error: 0, deleted: 0, expired: 0 },
    };
    if (!this.config.openstack || this.polling) return run;
    this.polling = true;
    try {
      await this.pollOnce(run);
    } finally {
      this.polling = false;
    }
    return run;
  }

  private async pollOnce(run: ServerWatchRun): Promise<void> {
    const now = this.clock.now();
    await this.watch.prune(new Date(now.getTime() - SETTLED_RETENTION_MS), 1000);
    const pending = await this.watch.pending(PENDING_LIMIT);
    run.pending = pending.length;
    const byProject = new Map<string | null, PendingServer[]>();
    for (const row of pending) {
      const rows = byProject.get(row.keystone_project_id) ?? [];
      rows.push(row);
      byProject.set(row.keystone_project_id, rows);
    }
    await forEachConcurrently([...byProject], LIST_CONCURRENCY, async ([keystoneId, rows]) => {
      const outcomes = await this.lookAt(keystoneId, rows, now);
      for (const [outcome, ids] of outcomes) {
        await this.watch.settle(ids, outcome, now);
        run.settled[outcome] += ids.length;
      }
    });
  }

  /** How each of one Keystone project's pending servers settles now, if it does. */
  private async lookAt(
    keystoneId: string | null,
    rows: PendingServer[],
    now: Date,
  ): Promise<Map<ServerWatchOutcome, string[]>> {
    const outcomes = new Map<ServerWatchOutcome, string[]>();
    const settle = (outcome: ServerWatchOutcome, id: string) =>
      outcomes.set(outcome, [...(outcomes.get(outcome) ?? []), id]);
    const expired = (row: PendingServer) =>
      now.getTime() - new Date(row.created_at).getTime() > SERVER_WATCH_MAX_MS;
    let servers: Map<string, NovaServer> | undefined;
    try {
      if (keystoneId) servers = await this.servers(keystoneId);
    } catch (error) {
      this.logger.warn(
        `servers of Keystone project ${keystoneId} not read (${(error as Error).message}); trying again next poll`,
      );
    }
    for (const row of rows) {
      const server = servers?.get(row.server_id);
      if (!servers) {
        if (expired(row)) settle('expired', row.server_id);
      } else if (!server || server.status === 'DELETED' || server.status === 'SOFT_DELETED') {
        settle('deleted', row.server_id);
      } else if (server.status === 'ACTIVE') {
        await this.events.emitOnce(
          { source: 'server', objectUid: row.server_id, transition: 'active' },
          row.organization_id,
          'server.active',
          { server_id: row.server_id, project_id: row.project_id, name: server.name ?? null },
        );
        settle('active', row.server_id);
      } else if (server.status === 'ERROR') {
        settle('error', row.server_id);
      } else if (expired(row)) {
        settle('expired', row.server_id);
      }
    }
    return outcomes;
  }

  /** Every server of the Keystone project, by id, following Nova's pages. */
  private async servers(keystoneId: string): Promise<Map<string, NovaServer>> {
    const servers = new Map<string, NovaServer>();
    let marker: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await this.openstack.call<NovaServerPage>(
        { projectId: keystoneId },
        'compute',
        {
          method: 'GET',
          path: '/servers/detail',
          query: { marker },
        },
      );
      for (const server of answer.servers) servers.set(server.id, server);
      const next = answer.servers_links?.find((link) => link.rel === 'next')?.href;
      if (!next || answer.servers.length === 0) return servers;
      // Absolute as Nova writes it; read relative to anything in case a proxy rewrote it.
      marker = new URL(next, 'http://nova').searchParams.get('marker') ?? answer.servers.at(-1)!.id;
    }
    // Stopping short would take the servers not read yet for deleted ones.
    throw new Error(`more than ${MAX_PAGES} pages of servers`);
  }
}
