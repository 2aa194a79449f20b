import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pageKey } from '@platform/escalation';
import { messageIdLeft } from '@platform/mail';
import { digestMessageKey } from '@platform/notifications';
import { JobName, JobQueue } from '@platform/queue';
import {
  buildDeployables,
  DeployableProcess,
  type DeployablesBuild,
  type ReceivedMail,
  SmtpSink,
  type TestApp,
  eventually,
} from '@platform/testing';
import { DataSource } from 'typeorm';
import { alertsProject } from '../support/alerting.js';
import { createApiTestApp } from '../support/api-app.js';
import { addMember, bearer, createAccount } from '../support/identity.js';

/** The Message-IDs each recipient received among `mails`, all of them, repeats included. */
function messageIdsByRecipient(mails: readonly ReceivedMail[]): Map<string, string[]> {
  const byRecipient = new Map<string, string[]>();
  for (const mail of mails) {
    for (const to of mail.to) byRecipient.set(to, [...(byRecipient.get(to) ?? []), mail.messageId]);
  }
  return byRecipient;
}

const distinct = (ids: readonly string[]) => [...new Set(ids)].sort();

/**
 * The worker deployable as separate processes on the real clock, killed (SIGKILL) in the middle
 * of a burst while the SMTP server holds back its replies, so the kill falls between the server
 * taking messages and the worker learning it did. A new worker process finishes the burst. What
 * the database records happens exactly once (pages, in-app notifications, ledger rows, marks);
 * e-mail arrives at least once and always under the Message-ID of what it is (a page, a digest
 * batch), so each recipient sees every page and every digest exactly once.
 *
 * Recovery waits for BullMQ to find the killed process's jobs stalled: their locks expire 10 s
 * after their last renewal and stalled jobs are looked for every 5 s.
 */
describe('worker processes killed mid-burst', () => {
  let sink: SmtpSink;
  let t: TestApp;
  let db: DataSource;
  let build: DeployablesBuild;
  let worker: DeployableProcess | undefined;
  let domain: string;

  const startWorker = () => DeployableProcess.start(build.entry('worker'), t.config);
  const messageId = (key: string) => `<${messageIdLeft(key)}@${domain}>`;

  beforeAll(async () => {
    build = buildDeployables();
    sink = await SmtpSink.start();
    // The API only, in this process; the worker runs as separate processes, on the real clock.
    t = await createApiTestApp({
      config: { smtpUrl: sink.url, digestFlushIntervalSeconds: 10, escalationSweepIntervalMs: 500 },
    });
    db = t.get(DataSource);
    domain = t.config.mailFrom.split('@').pop()!;
    worker = await startWorker();
  }, 120_000);

  afterAll(async () => {
    sink?.releaseReplies();
    await worker?.kill();
    await t?.close();
    await sink?.close();
    await build?.remove();
  });

  /**
   * Once `seen` messages matching `matching` arrived, the SMTP server stops answering; once it
   * took one more and `ready` holds, the worker is killed and a new worker process started.
   * Answers how many had arrived at the kill, and the Message-IDs of those taken without an
   * answer: the worker had sent them but could not know it.
   */
  async function killAfter(
    matching: (mail: ReceivedMail) => boolean,
    seen: number,
    ready: () => Promise<boolean> = async () => true,
  ) {
    const arrived = () => sink.messages.filter(matching);
    await eventually(() => arrived().length >= seen, {
      what: `${seen} messages`,
      timeoutMs: 60_000,
    });
    sink.holdReplies = true;
    const answered = arrived().length;
    await eventually(() => arrived().length > answered, {
      what: 'a message whose reply is held',
      timeoutMs: 30_000,
    });
    await eventually(ready, { what: 'the moment to kill', timeoutMs: 30_000, intervalMs: 10 });
    await worker!.kill();
    worker = undefined;
    const atKill = arrived();
    sink.releaseReplies();
    worker = await startWorker();
    return { atKill: atKill.length, unanswered: atKill.slice(answered).map((m) => m.messageId) };
  }

  /** Waits until each of `messageIds` arrived at least twice. */
  const sentAgain = (messageIds: readonly string[], timeoutMs: number) =>
    eventually(
      () => messageIds.every((id) => sink.messages.filter((m) => m.messageId === id).length >= 2),
      { what: 'the unanswered messages sent again', timeoutMs: timeoutMs },
    );

  it('runs every escalation step once and delivers each of its pages once', async () => {
    const ALERTS = 200;
    const owner = await createAccount(t, sink, 'owner@burst.example');
    const member = await addMember(t, sink, owner, 'dev@burst.example', 'developer');
    const projectId = await alertsProject(t, owner, 'burst');
    const post = (path: string, body: object) =>
      t.request().post(path).set(bearer(owner.jwt)).send(body).expect(201);
    const chain = await post(`/projects/${projectId}/escalation_chains`, {
      name: 'Burst',
      repeats: 0,
    });
    const chainId = chain.body.data.id as string;
    // The second step falls due while pages of the first are being delivered.
    for (const step of [
      { delay_seconds: 0, target_type: 'org_admins' },
      { delay_seconds: 2, target_type: 'member', target_member_id: member.accountId },
    ]) {
      await post(`/projects/${projectId}/escalation_chains/${chainId}/escalation_steps`, {
        ...step,
        channels: ['in_app', 'email'],
      });
    }
    await post(`/projects/${projectId}/alert_routes`, {
      priority: 1,
      matchers: [{ label: 'burst', op: 'eq', value: 'yes' }],
      escalation_chain_id: chainId,
      in_app_target_type: 'none',
    });
    const token = (await post(`/projects/${projectId}/alert_ingest_tokens`, {})).body.data
      .token as string;
    for (let batch = 0; batch < 10; batch += 1) {
      await t
        .request()
        .post(`/projects/${projectId}/alerts`)
        .set(bearer(token))
        .send({
          version: '4',
          status: 'firing',
          receiver: 'platform',
          alerts: Array.from({ length: ALERTS / 10 }, (_, n) => ({
            status: 'firing',
            labels: { alertname: 'Burst', severity: 'critical', burst: 'yes' },
            annotations: { summary: `Alert ${batch}-${n} is firing` },
            startsAt: new Date().toISOString(),
            endsAt: '0001-01-01T00:00:00Z',
            fingerprint: `burst-${batch}-${n}`,
          })),
        })
        .expect(200);
    }

    const isPage = (mail: ReceivedMail) => mail.subject.startsWith('[CRITICAL] Burst');
    // Killed while the second step's pages are being delivered.
    const { atKill, unanswered } = await killAfter(isPage, ALERTS / 2, async () => {
      const [row] = await db.query<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM notification WHERE account_id = $1
            AND category_key = 'alert_escalation'`,
        [member.accountId],
      );
      return row.n > 0;
    });
    expect(atKill).toBeLessThan(ALERTS * 2);

    const PAGES = ALERTS * 4;
    await eventually(
      async () => {
        const [row] = await db.query<Array<{ pages: number; settled: number }>>(
          `SELECT count(*)::int AS pages, count(*) FILTER (WHERE d.status <> 'pending')::int AS settled
             FROM escalation_page p JOIN delivery d ON d.id = p.id`,
        );
        return row.pages === PAGES && row.settled === PAGES;
      },
      { what: 'every page written and settled', timeoutMs: 150_000 },
    );
    const emailPages = await db.query<Array<{ id: string; login: string }>>(
      `SELECT p.id, a.login FROM escalation_page p JOIN account a ON a.id = p.account_id
        WHERE p.channel = 'email'`,
    );
    const expected = new Map<string, string[]>();
    for (const { id, login } of emailPages)
      expected.set(login, [...(expected.get(login) ?? []), messageId(pageKey(id))]);
    const received = () => messageIdsByRecipient(sink.messages.filter(isPage));
    await eventually(
      () =>
        [...expected].every(([login, ids]) =>
          ids.every((id) => received().get(login)?.includes(id)),
        ),
      { what: 'an e-mail for every e-mail page', timeoutMs: 90_000 },
    );
    // Their jobs run again once BullMQ finds them stalled.
    await sentAgain(unanswered, 150_000);

    // Each step of each escalation paged each of its targets on each channel once.
    expect(
      await db.query(
        `SELECT p.step_index, p.channel, p.account_id, count(*)::int AS pages,
                count(DISTINCT p.instance_id)::int AS instances,
                count(*) FILTER (WHERE d.status = 'sent')::int AS sent
           FROM escalation_page p JOIN delivery d ON d.id = p.id GROUP BY 1, 2, 3 ORDER BY 1, 2`,
      ),
    ).toEqual(
      [
        [0, 'email', owner.accountId],
        [0, 'in_app', owner.accountId],
        [1, 'email', member.accountId],
        [1, 'in_app', member.accountId],
      ].map(([step_index, channel, account_id]) => ({
        step_index,
        channel,
        account_id,
        pages: ALERTS,
        instances: ALERTS,
        sent: ALERTS,
      })),
    );
    expect(
      await db.query(`SELECT state, count(*)::int AS n FROM escalation_instance GROUP BY state`),
    ).toEqual([{ state: 'exhausted', n: ALERTS }]);
    // One in-app notification per in-app page, and no other; one ledger row and one timeline
    // event per page.
    const [counts] = await db.query<Array<Record<string, number>>>(
      `SELECT
         (SELECT count(*)::int FROM notification WHERE category_key = 'alert_escalation') AS notifications,
         (SELECT count(*)::int FROM escalation_page p
           WHERE p.channel = 'in_app'
             AND (SELECT count(*) FROM notification n
                   WHERE n.account_id = p.account_id
                     AND n.idempotency_key = 'escalation-page/' || p.id) = 1) AS notified_pages,
         (SELECT count(*)::int FROM escalation_ledger WHERE action = 'notified') AS ledger,
         (SELECT count(*)::int FROM alert_event WHERE kind = 'paged') AS paged`,
    );
    expect(counts).toEqual({
      notifications: ALERTS * 2,
      notified_pages: ALERTS * 2,
      ledger: PAGES,
      paged: PAGES,
    });
    // Each recipient sees one message per e-mail page: the kill made some arrive twice, under
    // the same Message-ID.
    const byRecipient = received();
    for (const [login, ids] of expected)
      expect(distinct(byRecipient.get(login)!)).toEqual(distinct(ids));
  }, 300_000);

  it('sends every digest once and marks every held e-mail', async () => {
    const ACCOUNTS = 200;
    // Written directly: two hundred signups would spend the test on password hashing.
    const accounts = await db.query<Array<{ id: string; login: string }>>(
      `INSERT INTO account (login, login_key, name, email_verified_at)
       SELECT 'reader-' || n || '@digest.example', 'reader-' || n || '@digest.example',
              'Reader ' || n, now()
         FROM generate_series(1, $1) n
       RETURNING id, login`,
      [ACCOUNTS],
    );
    const ids = accounts.map((a) => a.id);
    await db.query(
      `INSERT INTO notification_schedule (account_id, email_mode, timezone, digest_hour)
       SELECT id, 'hourly_digest', 'Europe/Berlin', 8 FROM unnest($1::uuid[]) id`,
      [ids],
    );
    // Held in one statement, so a sweep finds all of it or none.
    const held = await db.query<Array<{ id: string; account_id: string }>>(
      `INSERT INTO pending_email (account_id, category_key, subject, text, created_at)
       SELECT id, 'billing', 'Invoice ' || k || ' for ' || id, 'Details of invoice ' || k, now()
         FROM unnest($1::uuid[]) id, generate_series(1, 2) k
       RETURNING id, account_id`,
      [ids],
    );

    await t.get(JobQueue).enqueue(JobName.DigestSweep, {});

    const isDigest = (mail: ReceivedMail) => mail.subject === 'Your notification digest: 2 updates';
    const { atKill, unanswered } = await killAfter(isDigest, ACCOUNTS / 4);
    expect(atKill).toBeLessThan(ACCOUNTS);

    await eventually(
      async () => {
        const [row] = await db.query<Array<{ unsent: number }>>(
          'SELECT count(*)::int AS unsent FROM pending_email WHERE sent_at IS NULL',
        );
        return row.unsent === 0;
      },
      { what: 'every held e-mail marked', timeoutMs: 150_000 },
    );
    const [marked] = await db.query<Array<{ n: number }>>(
      'SELECT count(*)::int AS n FROM notification_schedule WHERE last_digest_at IS NOT NULL',
    );
    expect(marked.n).toBe(ACCOUNTS);

    // A mark follows its send, so every digest is in, and each unanswered one twice: sent
    // again by the new process, or sent meanwhile by another flush of the same batch (a later
    // sweep's) that got its answer. Each reader sees one digest, with both invoices.
    await sentAgain(unanswered, 10_000);
    const byRecipient = messageIdsByRecipient(sink.messages.filter(isDigest));
    for (const { id, login } of accounts) {
      const batch = held.filter((h) => h.account_id === id).map((h) => h.id);
      expect([login, distinct(byRecipient.get(login) ?? [])]).toEqual([
        login,
        [messageId(digestMessageKey(id, batch))],
      ]);
    }
    const texts = sink.messages.filter(isDigest).map((m) => m.text);
    for (const { id } of accounts.slice(0, 5)) {
      const digest = texts.find((text) => text.includes(`Invoice 1 for ${id}`));
      expect(digest).toContain(`Invoice 2 for ${id}`);
    }
  }, 300_000);
});
