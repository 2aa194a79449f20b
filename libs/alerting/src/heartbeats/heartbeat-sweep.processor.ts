import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock, StartupTasks } from '@platform/core';
import { JobName, JobQueue, OnJob } from '@platform/queue';
import type { IngestChanges } from '../ingest/alert-ingest.repository.js';
import { AlertIngestService } from '../ingest/alert-ingest.service.js';
import { heartbeatAlert } from './heartbeat-alerts.js';
import { type HeartbeatRow, HeartbeatsRepository } from './heartbeats.repository.js';

export const HEARTBEAT_SWEEP_SCHEDULER_ID = 'heartbeat-sweep';
/** Heartbeats turned down per transaction; a larger backlog takes several. */
export const HEARTBEAT_SWEEP_BATCH = 500;

/**
 * The repeatable job that notices missed heartbeats, every ESCALATION_SWEEP_INTERVAL_MS: each
 * heartbeat that is up and whose deadline (last ping plus interval plus grace) passed by the
 * clock turns down, and its alert is ingested as firing in the same transaction (fingerprint
 * `heartbeat-<id>`, starting at the deadline), then dispatched like any ingested alert:
 * routes, notifications, escalation. Replicas share the work (rows are claimed with SKIP
 * LOCKED), and a sweep Redis lost is made up by the next one, as the state is in PostgreSQL.
 */
@Injectable()
export class HeartbeatSweepProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger('heartbeat-sweep');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly heartbeats: HeartbeatsRepository,
    private readonly ingestion: AlertIngestService,
    private readonly jobs: JobQueue,
    private readonly startup: StartupTasks,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.startup.run(
      'heartbeat sweep schedule',
      async () => {
        const queue = this.jobs.queue(this.jobs.queueOf(JobName.HeartbeatSweep));
        await this.jobs.withRedis(() =>
          queue.upsertJobScheduler(
            HEARTBEAT_SWEEP_SCHEDULER_ID,
            { every: this.config.escalationSweepIntervalMs },
            {
              name: JobName.HeartbeatSweep,
              data: {},
              opts: { removeOnComplete: true, removeOnFail: 100 },
            },
          ),
        );
      },
      { againWhenBack: 'redis' },
    );
  }

  /** Answers how many heartbeats it turned down. */
  @OnJob(JobName.HeartbeatSweep)
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const down = await this.sweepBatch();
      total += down;
      if (down < HEARTBEAT_SWEEP_BATCH) break;
    }
    if (total > 0) this.logger.log(`${total} heartbeat(s) missed their ping`);
    return total;
  }

  private async sweepBatch(): Promise<number> {
    const now = this.clock.now();
    const { rows, changes } = await this.heartbeats.transaction(async (manager) => {
      const down = await this.heartbeats.markOverdueDown(manager, now, HEARTBEAT_SWEEP_BATCH);
      const byProject = new Map<string, HeartbeatRow[]>();
      for (const row of down)
        byProject.set(row.project_id, [...(byProject.get(row.project_id) ?? []), row]);
      const ingested = new Map<string, IngestChanges>();
      for (const [projectId, heartbeats] of byProject) {
        const result = await this.ingestion.ingestWithin(
          manager,
          projectId,
          heartbeats.map((heartbeat) => heartbeatAlert(heartbeat, 'firing', now)),
        );
        // The names and labels passed validation; alerts built from them are always valid.
        if (result.errors.length > 0)
          throw new Error(`heartbeat alert of project ${projectId}: ${result.errors[0].message}`);
        ingested.set(projectId, result.changes);
      }
      return { rows: down, changes: ingested };
    });
    for (const [projectId, projectChanges] of changes)
      await this.ingestion.dispatch(projectId, projectChanges);
    return rows.length;
  }
}
