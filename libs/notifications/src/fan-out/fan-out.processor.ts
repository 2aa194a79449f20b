import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { Clock, StartupTasks } from '@platform/core';
import { JobName, JobQueue, type JobPayloads, OnJob, QueueName } from '@platform/queue';
import { NotifyService } from '../notify/notify.service.js';
import { FanOutMessages } from './fan-out-messages.js';
import { FAN_OUT_PAGE_SIZE, FanOutRepository } from './fan-out.repository.js';
import { FanOuts } from './fan-outs.js';

export const FAN_OUT_SWEEP_INTERVAL_MS = 30_000;

/**
 * Runs fan-outs page by page: a page reads the shard's next accounts by keyset (after its
 * cursor), notifies them in one batch (notify(), which shares every read and write across the
 * page), moves the cursor and queues the next page. A page whose cursor has moved on is stale
 * and does nothing, so a page queued twice runs once; a worker that dies mid-page leaves the
 * cursor where it was, and the page runs again (its idempotency key keeps in-app rows single).
 * The sweep queues the next page of every unfinished shard, which resumes fan-outs whose jobs
 * were lost with Redis.
 */
@Injectable()
export class FanOutProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger('fan-outs');
  /** Accounts per page (tests make pages small to see several). */
  pageSize = FAN_OUT_PAGE_SIZE;

  constructor(
    private readonly clock: Clock,
    private readonly repository: FanOutRepository,
    private readonly messages: FanOutMessages,
    private readonly notifications: NotifyService,
    private readonly fanOuts: FanOuts,
    private readonly jobs: JobQueue,
    private readonly startup: StartupTasks,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.startup.run(
      'fan-out sweep schedule',
      async () => {
        await this.jobs.withRedis(() =>
          this.jobs
            .queue(QueueName.Maintenance)
            .upsertJobScheduler(
              'fan-out-sweep',
              { every: FAN_OUT_SWEEP_INTERVAL_MS },
              { name: JobName.FanOutSweep, data: {} },
            ),
        );
      },
      { againWhenBack: 'redis' },
    );
  }

  /** Answers how many accounts the page notified. */
  @OnJob(JobName.FanOutPage)
  async page(data: JobPayloads[JobName.FanOutPage]): Promise<number> {
    const shard = await this.repository.shard(data.shardId);
    if (!shard || shard.doneAt || shard.cursor !== data.after) return 0;
    const message = await this.messages.of(shard.kind, shard.subjectId);
    const accounts = message
      ? await this.repository.page(shard, data.after, message.features, this.pageSize)
      : [];
    if (!message || accounts.length === 0) {
      await this.repository.finish(shard.id, this.clock.now());
      return 0;
    }
    await this.notifications.notify({ ...message.request, recipients: accounts });
    const last = accounts[accounts.length - 1];
    if (await this.repository.advance(shard.id, data.after, last)) {
      await this.fanOuts.queuePages([{ shardId: shard.id, after: last }]);
    }
    return accounts.length;
  }

  /** Answers how many shards it queued a page for. */
  @OnJob(JobName.FanOutSweep)
  async sweep(): Promise<number> {
    const shards = await this.repository.unfinished();
    if (shards.length === 0) return 0;
    await this.fanOuts.queuePages(shards.map((s) => ({ shardId: s.id, after: s.cursor })));
    this.logger.log(`fan-out sweep queued ${shards.length} page(s)`);
    return shards.length;
  }
}
