import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock, StartupTasks } from '@platform/core';
import { MailTransport } from '@platform/mail';
import { JobName, JobQueue, OnJob, QueueName } from '@platform/queue';
import { digestDue } from '../delivery/decide.js';
import type { PendingEmail } from '../entities.js';
import { scheduleSettings } from '../notify/schedule-settings.js';
import { DigestRepository } from './digest.repository.js';

/**
 * A completed flush leaves nothing to keep: its effect is in the database, and a later sweep
 * does not find the account due again. Failed ones stay (queue default) for inspection.
 */
export const DIGEST_FLUSH_JOB_OPTIONS = {
  attempts: 6,
  backoff: { type: 'exponential', delay: 5000 },
  removeOnComplete: true,
};

/**
 * What a digest e-mail is: the account's batch of held e-mails, in any order. A batch sent again
 * after a crash between sending and marking it keeps its Message-ID; a batch that grew
 * meanwhile is another digest.
 */
export function digestMessageKey(accountId: string, pendingIds: readonly string[]): string {
  return `digest/${accountId}/${[...pendingIds].sort().join(',')}`;
}

/** What a held e-mail released on its own is: that e-mail. */
export function heldMessageKey(pendingId: string): string {
  return `held-email/${pendingId}`;
}

/** One e-mail summarising the held ones; each listed with its subject and text. */
export function composeDigest(
  name: string,
  pending: PendingEmail[],
): { subject: string; text: string; html: string } {
  const subject = `Your notification digest: ${pending.length} update${pending.length === 1 ? '' : 's'}`;
  const escape = (value: string) => value.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const text = [`Hello ${name},`, '', `here is what happened since your last digest:`, '']
    .concat(
      pending.flatMap((p) => [
        `* ${p.subject}`,
        ...p.text.split('\n').map((line) => `  ${line}`),
        '',
      ]),
    )
    .join('\n');
  const html = `<p>Hello ${escape(name)},</p><p>here is what happened since your last digest:</p><ul>${pending
    .map(
      (p) =>
        `<li><strong>${escape(p.subject)}</strong><br>${escape(p.text).replace(/\n/g, '<br>')}</li>`,
    )
    .join('')}</ul>`;
  return { subject, text, html };
}

/**
 * Every DIGEST_FLUSH_INTERVAL_SECONDS a sweep enqueues one flush job per account whose digest
 * (or end of quiet hours) is due, so one account's failing mail never holds up another's.
 * A flush sends first and marks afterwards: a crash in between sends the batch again rather
 * than losing it, with the same Message-ID (see digestMessageKey), so the reader's side takes
 * it for the message it already has.
 */
@Injectable()
export class DigestProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger('digests');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly digests: DigestRepository,
    private readonly jobs: JobQueue,
    private readonly transport: MailTransport,
    private readonly startup: StartupTasks,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.startup.run(
      'digest sweep schedule',
      async () => {
        await this.jobs.withRedis(() =>
          this.jobs
            .queue(QueueName.Digests)
            .upsertJobScheduler(
              'digest-sweep',
              { every: this.config.digestFlushIntervalSeconds * 1000 },
              { name: JobName.DigestSweep, data: {} },
            ),
        );
      },
      { againWhenBack: 'redis' },
    );
  }

  @OnJob(JobName.DigestSweep)
  async sweep(): Promise<number> {
    const now = this.clock.now();
    const slot = Math.floor(now.getTime() / (this.config.digestFlushIntervalSeconds * 1000));
    // Accounts that share a schedule (and last digest) are decided once per sweep.
    const decided = new Map<string, boolean>();
    const due = (await this.digests.accountsWithPending()).filter(({ schedule }) => {
      const key = schedule
        ? `${schedule.emailMode}|${schedule.quietStart}|${schedule.quietEnd}|${schedule.timezone}|${schedule.digestHour}|${schedule.lastDigestAt?.getTime() ?? ''}`
        : '';
      let isDue = decided.get(key);
      if (isDue === undefined) {
        isDue = digestDue(scheduleSettings(schedule), schedule?.lastDigestAt ?? null, now);
        decided.set(key, isDue);
      }
      return isDue;
    });
    await this.jobs.enqueueBulk(
      JobName.DigestFlush,
      due.map(({ accountId }) => ({
        data: { accountId },
        options: { ...DIGEST_FLUSH_JOB_OPTIONS, jobId: `digest-${accountId}-${slot}` },
      })),
    );
    this.logger.log(`digest sweep enqueued ${due.length} flush job(s)`);
    return due.length;
  }

  @OnJob(JobName.DigestFlush)
  async flush(data: { accountId: string }): Promise<number> {
    const { pending, recipient } = await this.digests.flushState(data.accountId);
    if (pending.length === 0 || !recipient) return 0;
    const digest = (recipient.emailMode ?? 'instant') !== 'instant';
    if (digest) {
      await this.transport.send({
        to: recipient.login,
        ...composeDigest(recipient.name, pending),
        messageKey: digestMessageKey(
          data.accountId,
          pending.map((p) => p.id),
        ),
      });
      await this.digests.markSent(
        data.accountId,
        pending.map((p) => p.id),
        this.clock.now(),
        true,
      );
    } else {
      // Mail held by quiet hours in instant mode goes out as it was written, one by one.
      for (const mail of pending) {
        await this.transport.send({
          to: recipient.login,
          subject: mail.subject,
          text: mail.text,
          html: mail.html ?? undefined,
          messageKey: heldMessageKey(mail.id),
        });
        await this.digests.markSent(data.accountId, [mail.id], this.clock.now(), false);
      }
    }
    this.logger.debug(`flushed ${pending.length} held e-mail(s) for ${data.accountId}`);
    return pending.length;
  }
}
