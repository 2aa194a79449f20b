import { Injectable, Logger } from '@nestjs/common';
import { JobName, JobQueue, type JobPayloads } from '@platform/queue';
import type { EntityManager } from 'typeorm';
import { type FanOutKind, FanOutRepository } from './fan-out.repository.js';

/**
 * A page is retried with backoff; one that keeps failing is dropped rather than kept, since a
 * kept job's id would refuse the sweep's next try of the same page.
 */
export const FAN_OUT_PAGE_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: true,
  removeOnFail: true,
};

/** One job id per page of a shard, so a page queued twice while the first waits is one job. */
export function fanOutPageJobId(page: JobPayloads[JobName.FanOutPage]): string {
  return `fan-out-${page.shardId}-${page.after ?? 'start'}`;
}

/**
 * Notifying every concerned account of something platform-wide, in pages (FanOutPage jobs)
 * rather than a job per account. The fan-out's shards are written in the transaction of what
 * it announces, their first pages queued after the commit; if that fails (Redis away), the
 * worker's sweep queues them.
 */
@Injectable()
export class FanOuts {
  private readonly logger = new Logger('fan-outs');

  constructor(
    private readonly fanOuts: FanOutRepository,
    private readonly jobs: JobQueue,
  ) {}

  /** Creates the fan-out's shards; answers their ids for `kick` after the commit. */
  create(manager: EntityManager, kind: FanOutKind, subjectId: string, now: Date) {
    return this.fanOuts.create(manager, kind, subjectId, now);
  }

  /** Queues the first page of each shard; a failure is left to the sweep. */
  async kick(shardIds: readonly string[]): Promise<void> {
    try {
      await this.queuePages(shardIds.map((shardId) => ({ shardId, after: null })));
    } catch (error) {
      this.logger.warn(
        `fan-out pages not queued (the sweep will): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  queuePages(pages: ReadonlyArray<JobPayloads[JobName.FanOutPage]>): Promise<string[]> {
    return this.jobs.enqueueBulk(
      JobName.FanOutPage,
      pages.map((data) => ({
        data,
        options: { ...FAN_OUT_PAGE_JOB_OPTIONS, jobId: fanOutPageJobId(data) },
      })),
    );
  }
}
