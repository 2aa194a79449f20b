import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Mailer, MailModule, messageIdLeft } from '@platform/mail';
import { JobQueue, QueueName } from '@platform/queue';
import { closedLocalPort, SmtpSink, type TestApp, eventually } from '@platform/testing';
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

    it('queues a keyed e-mail once and sends it with the Message-ID its key names', async () => {
      const keyed = { ...email, to: 'keyed@example.test', messageKey: 'page-42' };
      const messageId = `<${messageIdLeft('page-42')}@example.test>`;
      const [first, again] = [await app.get(Mailer).send(keyed), await app.get(Mailer).send(keyed)];
      expect(again).toBe(first);
      const [bulk] = await app.get(Mailer).sendMany([keyed]);
      expect(bulk).toBe(first);

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
  });
});
