import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Mailer, MailModule, messageIdLeft } from '@platform/mail';
import { JobName, JobQueue, QueueName } from '@platform/queue';
import {
  closedLocalPort,
  SmtpSink,
  type TestApp,
  eventually,
  expectEventually,
} from '@platform/testing';
import type { Job } from 'bullmq';
import { createApiTestApp } from '../support/api-app.js';

const email = {
  to: 'ada@example.test',
  subject: 'Verify your e-mail',
  text: 'Your token: abc123',
};

/** Polls the job until `done` holds: BullMQ runs on real time, not on the fake clock. */
async function jobWhen(app: TestApp, id: string, done: (job: Job) => boolean): Promise<Job> {
  const queue = app.get(JobQueue).queue(QueueName.Deliveries);
  return (await eventually(
    () => queue.getJob(id),
    (job) => job !== undefined && done(job),
    `job ${id}`,
  ))!;
}

function mailApp(smtpUrl: string | null): Promise<TestApp> {
  return createApiTestApp({
    withWorker: true,
    imports: [MailModule],
    config: { smtpUrl, mailFrom: 'platform@example.test' },
  });
}

describe('e-mail delivery through the worker', () => {
  describe('with an SMTP server', () => {
    let sink: SmtpSink;
    let app: TestApp;

    beforeAll(async () => {
      sink = await SmtpSink.start();
      app = await mailApp(sink.url);
    });

    afterAll(async () => {
      await app?.close();
      await sink?.close();
    });

    it('delivers a queued e-mail from MAIL_FROM', async () => {
      const html = '<p>Your token: <b>abc123</b></p>';
      const id = await app.get(Mailer).send({ ...email, html });

      const mail = await sink.waitFor();
      expect(sink.messages).toHaveLength(1);
      expect(mail).toMatchObject({
        from: 'platform@example.test',
        to: ['ada@example.test'],
        subject: email.subject,
      });
      // The text part arrives with a trailing line break.
      expect(mail.text.trimEnd()).toBe(email.text);
      expect(mail.html?.trimEnd()).toBe(html);
      const job = await jobWhen(app, id, (j) => j.finishedOn !== undefined);
      expect(job.returnvalue).toEqual({ outcome: 'sent', providerRef: mail.messageId });
    });

    it('fails a message the server refuses permanently at once, without retries', async () => {
      sink.refusedRecipients.add('gone@example.test');
      try {
        const id = await app.get(Mailer).send({ ...email, to: 'gone@example.test' });
        const job = await jobWhen(app, id, (j) => j.finishedOn !== undefined);
        expect(await job.getState()).toBe('completed');
        expect(job.attemptsMade).toBe(1);
        expect(job.returnvalue).toEqual({
          outcome: 'failed',
          reason: expect.stringContaining('550'),
        });
      } finally {
        sink.refusedRecipients.delete('gone@example.test');
      }
    });

    it('sends e-mails queued together from one job, each with its own outcome', async () => {
      sink.refusedRecipients.add('refused@batch.test');
      try {
        const enqueue = jest.spyOn(app.get(JobQueue), 'enqueueBulk');
        const to = ['one@batch.test', 'refused@batch.test', 'two@batch.test'];
        await app.get(Mailer).sendMany(to.map((address) => ({ ...email, to: address })));
        const calls = enqueue.mock.calls.map(([name, jobs]) => [name, jobs.length]);
        enqueue.mockRestore();
        expect(calls).toEqual([[JobName.SendEmails, 1]]);
        await expectEventually(() =>
          expect(
            sink.messages.filter((m) => m.to[0].endsWith('@batch.test')).map((m) => m.to[0]),
          ).toEqual(expect.arrayContaining(['one@batch.test', 'two@batch.test'])),
        );
        // Refused for good: failed alone, never tried again.
        const retried = await app.get(JobQueue).queue(QueueName.Deliveries).getDelayed();
        expect(retried.filter((job) => job.data.to === 'refused@batch.test')).toEqual([]);
        expect(sink.messages.filter((m) => m.to[0] === 'refused@batch.test')).toEqual([]);
      } finally {
        sink.refusedRecipients.delete('refused@batch.test');
      }
    });

    it('queues a keyed e-mail once and sends it with the Message-ID its key names', async () => {
      const keyed = { ...email, to: 'keyed@example.test', messageKey: 'page-42' };
      const messageId = `<${messageIdLeft('page-42')}@example.test>`;
      const [first, again] = [await app.get(Mailer).send(keyed), await app.get(Mailer).send(keyed)];
      expect(again).toBe(first);
      // In bulk too, a keyed e-mail has its job of its own, the one already there.
      await app.get(Mailer).sendMany([keyed]);

      const job = await jobWhen(app, first, (j) => j.finishedOn !== undefined);
      expect(job.returnvalue).toEqual({ outcome: 'sent', providerRef: messageId });
      const received = sink.messages.filter((m) => m.to.includes('keyed@example.test'));
      expect(received.map((m) => m.messageId)).toEqual([messageId]);
    });
  });

  describe('without SMTP_URL', () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await mailApp(null);
    });

    afterAll(async () => {
      await app?.close();
    });

    it('counts the e-mail as delivered once it is written to the log', async () => {
      const id = await app.get(Mailer).send(email);
      const job = await jobWhen(app, id, (j) => j.finishedOn !== undefined);
      expect(job.failedReason).toBeUndefined();
      // Written to the log: sent, with no Message-ID of a server.
      expect(job.returnvalue).toEqual({ outcome: 'sent' });
    });
  });

  describe('when the SMTP server is unreachable', () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await mailApp(`smtp://127.0.0.1:${await closedLocalPort()}`);
    });

    afterAll(async () => {
      await app?.close();
    });

    it('keeps the job and retries it with backoff', async () => {
      const id = await app.get(Mailer).send(email);
      const job = await jobWhen(app, id, (j) => j.attemptsMade >= 1);
      expect(job.failedReason).toMatch(/ECONNREFUSED/);
      expect(job.opts).toMatchObject({ attempts: 8, backoff: { type: 'exponential' } });
      expect(await job.getState()).toBe('delayed');
    });

    it('queues an e-mail of a batch that failed as a job of its own, with the attempts left', async () => {
      await app.get(Mailer).sendMany([{ ...email, to: 'later@batch.test' }]);
      const queue = app.get(JobQueue).queue(QueueName.Deliveries);
      const [retry] = await eventually(
        async () =>
          (await queue.getDelayed()).filter(
            (job) =>
              job.name === (JobName.SendEmail as string) && job.data.to === 'later@batch.test',
          ),
        (jobs) => jobs.length > 0,
      );
      expect(retry.opts).toMatchObject({ attempts: 7, delay: 2_000 });
      expect(retry.data).toEqual({ ...email, to: 'later@batch.test' });
    });
  });
});
