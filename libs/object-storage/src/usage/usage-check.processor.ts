import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock, StartupTasks } from '@platform/core';
import { NotifyService } from '@platform/notifications';
import { JobName, JobQueue, OnJob, QueueName } from '@platform/queue';
import pLimit from 'p-limit';
import { RgwAdminOps } from '../client/rgw-admin-ops.js';
import { type Usage, usageOf } from './usage-level.js';
import { type UserUsageState, UsageLevelsRepository } from './usage-levels.repository.js';

export const USAGE_CHECK_INTERVAL_MS = 15 * 60_000;
const USERS_PER_PAGE = 200;
/** RGW calls at once: enough to walk thousands of users per run, few enough to spare RGW. */
const RGW_CALLS_AT_ONCE = 4;

/**
 * Every 15 minutes: reads each RGW user's usage and quota (one Admin Ops call per user, its
 * user info with stats) and notifies the organization's admins (category `billing`) when the
 * usage rises past 80 % or 100 % of an enabled quota, once per crossing: the level is stored,
 * and falling below a threshold is stored silently, so rising past it again notifies anew. A
 * user RGW fails to answer for is left for the next run.
 */
@Injectable()
export class UsageCheckProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger('object-storage-usage');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly levels: UsageLevelsRepository,
    private readonly rgw: RgwAdminOps,
    private readonly notifications: NotifyService,
    private readonly jobs: JobQueue,
    private readonly startup: StartupTasks,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.startup.run(
      'object-storage usage check schedule',
      async () => {
        await this.jobs.withRedis(() =>
          this.jobs
            .queue(QueueName.Maintenance)
            .upsertJobScheduler(
              'object-storage-usage-check',
              { every: USAGE_CHECK_INTERVAL_MS },
              { name: JobName.ObjectStorageUsageCheck, data: {} },
            ),
        );
      },
      { againWhenBack: 'redis' },
    );
  }

  /** Answers how many crossings it notified. */
  @OnJob(JobName.ObjectStorageUsageCheck)
  async check(): Promise<number> {
    if (!this.config.rgw) return 0;
    const limit = pLimit(RGW_CALLS_AT_ONCE);
    let notified = 0;
    for (let after: string | null = null; ;) {
      const users = await this.levels.page(after, USERS_PER_PAGE);
      if (users.length === 0) return notified;
      const results = await Promise.all(users.map((user) => limit(() => this.checkUser(user))));
      notified += results.filter(Boolean).length;
      after = users[users.length - 1].id;
    }
  }

  private async checkUser(user: UserUsageState): Promise<boolean> {
    let usage: Usage | null;
    try {
      usage = usageOf(await this.rgw.userInfo(user.uid, true));
    } catch (error) {
      this.logger.warn(
        `usage of RGW user ${user.uid} not read: ${error instanceof Error ? error.message : String(error)}`,
      );
      return false;
    }
    const level = usage?.level ?? 0;
    if (level === user.level) return false;
    const now = this.clock.now();
    if (level < user.level || !usage) {
      await this.levels.record(user.id, level, user.crossings, now);
      return false;
    }
    // Notified before it is recorded: a crash in between notifies again under the same key,
    // which writes no second in-app row.
    const crossing = user.crossings + 1;
    await this.notifications.notify({
      category: 'billing',
      eventType: 'object_storage_quota_threshold',
      organizationId: user.organization_id,
      recipients: await this.levels.organizationAdmins(user.organization_id),
      payload: this.payload(user, usage),
      email: this.email(user, usage),
      idempotencyKey: `rgw-usage/${user.id}/${crossing}`,
    });
    await this.levels.record(user.id, level, crossing, now);
    return true;
  }

  private payload(user: UserUsageState, usage: Usage): Record<string, unknown> {
    return {
      rgw_user_id: user.id,
      rgw_user_name: user.name,
      project_id: user.project_id,
      threshold_percent: usage.level,
      used_kb: Math.ceil(usage.usedBytes / 1024),
      quota_kb: Math.floor(usage.quotaBytes / 1024),
      used_percent: Math.floor((usage.usedBytes * 100) / usage.quotaBytes),
      link: `${this.config.publicUrl}/rgw/users/${user.id}?project_id=${user.project_id}`,
    };
  }

  private email(user: UserUsageState, usage: Usage): { subject: string; text: string } {
    const full = usage.level === 100;
    return {
      subject: `Object storage user ${user.name} ${full ? 'has used its whole quota' : `is at ${usage.level} % of its quota`}`,
      text: [
        `The object storage user ${user.name} uses ${Math.ceil(usage.usedBytes / 1024)} KiB of its ${Math.floor(usage.quotaBytes / 1024)} KiB quota.`,
        full
          ? 'Uploads beyond the quota are refused: remove data or ask for a larger quota.'
          : 'Uploads will be refused once the quota is used up.',
        '',
        `${this.config.publicUrl}/rgw/users/${user.id}?project_id=${user.project_id}`,
      ].join('\n'),
    };
  }
}
