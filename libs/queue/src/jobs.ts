import { QueueName } from './queue-name.js';

/**
 * Every job the platform runs. The values are stored in Redis with each job: never rename
 * one, only add. Each job names its queue in JOB_QUEUES and its payload in JobPayloads; the
 * worker refuses to start while any of them has no processor.
 */
export enum JobName {
  SendEmail = 'email.send',
  SendEmails = 'email.send-batch',
  SendSms = 'sms.send',
  PhoneCall = 'phone.call',
  DigestSweep = 'notifications.digest-sweep',
  DigestFlush = 'notifications.digest-flush',
  AlertDispatch = 'alerts.dispatch',
  WebhookDeliver = 'webhooks.deliver',
  AlertsPrune = 'alerts.prune',
  EscalationStep = 'escalations.step',
  EscalationReEscalate = 'escalations.re-escalate',
  EscalationPages = 'escalations.pages',
  EscalationPageSends = 'escalations.page-sends',
  TestAlertResolve = 'alerts.test-resolve',
  OrganizationWebhookDeliver = 'organization-webhooks.deliver',
  OrganizationWebhooksPrune = 'organization-webhooks.prune',
  OpenStackServerWatch = 'openstack.server-watch',
  HeartbeatSweep = 'alerts.heartbeat-sweep',
  AlertBundleFlush = 'alerts.bundle-flush',
  SecurityNotice = 'notifications.security-notice',
  FanOutPage = 'notifications.fan-out-page',
  FanOutSweep = 'notifications.fan-out-sweep',
  ObjectStorageUsageCheck = 'object-storage.usage-check',
}

/** What a security notification tells an account (its `event_type`). */
export type SecurityEvent =
  | 'login_from_new_origin'
  | 'password_changed'
  | 'password_reset'
  | 'token_created'
  | 'token_revoked'
  | 'email_changed'
  | 'phone_changed'
  | 'phone_removed'
  | 'membership_role_changed'
  | 'account_locked';

export interface JobPayloads extends Record<JobName, unknown> {
  /**
   * `messageKey` names what the e-mail is about (e.g. one escalation page): the same key gives
   * the same Message-ID, so a message sent again after a crash is the same message to its reader.
   * `deliveryId` names the notification_delivery row to update, as for SendSms.
   */
  [JobName.SendEmail]: {
    to: string;
    subject: string;
    text: string;
    html?: string;
    messageKey?: string;
    deliveryId?: string;
  };
  /**
   * E-mails sent side by side by one job, each with its own outcome: a failed one is queued again
   * as a SendEmail job of its own. For unkeyed e-mail only (a keyed one needs its own job id).
   */
  [JobName.SendEmails]: { messages: Array<JobPayloads[JobName.SendEmail]> };
  /** An SMS to an E.164 number; `deliveryId` names the notification_delivery row to update. */
  [JobName.SendSms]: { to: string; body: string; deliveryId?: string };
  /** A voice call that reads `text` aloud; `deliveryId` as for SendSms. */
  [JobName.PhoneCall]: { to: string; text: string; deliveryId?: string };
  [JobName.DigestSweep]: Record<string, never>;
  [JobName.DigestFlush]: { accountId: string };
  /**
   * What one ingest changed in a project: alerts that began firing (first time or after
   * resolution) go through routing; resolved ones fan out `alert_resolved` and stop escalation.
   */
  [JobName.AlertDispatch]: { projectId: string; fired: string[]; resolved: string[] };
  /** One signed POST of a webhook_delivery row; retried with backoff, each attempt recorded. */
  [JobName.WebhookDeliver]: { deliveryId: string };
  /** Daily: drops webhook deliveries and alert timeline events past their 90-day retention. */
  [JobName.AlertsPrune]: Record<string, never>;
  /**
   * Runs the escalation steps due at `dueAt` (ISO 8601). Steps falling due at the same instant
   * share one job (its id names the instant); whichever job runs first executes every step due
   * by then, so the rest find theirs done and return.
   */
  [JobName.EscalationStep]: { dueAt: string };
  /** Restarts an acknowledged escalation from step 1 if its alert is still firing. */
  [JobName.EscalationReEscalate]: { instanceId: string; generation: number };
  /** Delivers one escalation_page row (in-app, e-mail, phone call or SMS). */
  /** Escalation pages delivered together: a burst's first attempts, or one page's retry. */
  [JobName.EscalationPages]: { pageIds: string[] };
  /** As EscalationPages, for e-mail, phone and SMS pages (on a queue of their own). */
  [JobName.EscalationPageSends]: { pageIds: string[] };
  /**
   * Resolves a test alert once the clock reaches `resolveAt` (ISO 8601), unless it was resolved
   * sooner; a job that runs early does nothing (the worker's sweep enqueues it again when due).
   */
  [JobName.TestAlertResolve]: { alertId: string; resolveAt: string };
  /**
   * One signed POST of an organization_webhook_delivery row (an app or cluster event to an
   * organization webhook's url); retried with backoff, each attempt recorded.
   */
  [JobName.OrganizationWebhookDeliver]: { deliveryId: string };
  /** Daily: drops organization webhook deliveries and receipts past their 90-day retention. */
  [JobName.OrganizationWebhooksPrune]: Record<string, never>;
  /**
   * Every few seconds: reads the servers created through the platform that are still in BUILD
   * (one Nova list per Keystone project) and tells `server.active` for those that are up.
   */
  [JobName.OpenStackServerWatch]: Record<string, never>;
  /**
   * Every ESCALATION_SWEEP_INTERVAL_MS: turns the heartbeats whose ping is overdue (interval
   * plus grace) down and fires their alerts.
   */
  [JobName.HeartbeatSweep]: Record<string, never>;
  /**
   * Every ESCALATION_SWEEP_INTERVAL_MS: sends the notifications of the alert bundles (storm
   * control) whose window closed.
   */
  [JobName.AlertBundleFlush]: Record<string, never>;
  /**
   * One security notification (category `security`) to `accountId`, and to the organization's
   * admins when `organizationAdmins` is set. `noticeId` names it, so a retried job notifies
   * nobody twice. `at` (ISO 8601), `address` and `userAgent` say when and from where; `link` is
   * the page to look at; `details` the facts of the event. Never a secret.
   */
  [JobName.SecurityNotice]: {
    noticeId: string;
    event: SecurityEvent;
    accountId: string;
    organizationId: string | null;
    organizationAdmins?: boolean;
    at: string;
    address: string | null;
    userAgent: string | null;
    link: string;
    details: Record<string, string | number | boolean | null>;
    /**
     * The address the e-mail goes to instead of the account's login: the address an account
     * just left, whose holder must hear of the change (`email_changed`).
     */
    emailTo?: string;
  };
  /**
   * Notifies the next page of a fan-out shard's accounts: those after `after` (null: from the
   * start of its range). Runs only while the shard's stored cursor is `after`, so a page queued
   * twice runs once.
   */
  [JobName.FanOutPage]: { shardId: string; after: string | null };
  /** Every 30 seconds: queues the next page of every unfinished fan-out shard (resumption). */
  [JobName.FanOutSweep]: Record<string, never>;
  /**
   * Every 15 minutes: each RGW user's usage against its enabled quota; a rise past 80 % or
   * 100 % notifies the organization's admins once per crossing.
   */
  [JobName.ObjectStorageUsageCheck]: Record<string, never>;
}

export const JOB_QUEUES: Record<JobName, QueueName> = {
  [JobName.SendEmail]: QueueName.Deliveries,
  [JobName.SendEmails]: QueueName.Deliveries,
  [JobName.SendSms]: QueueName.Deliveries,
  [JobName.PhoneCall]: QueueName.Deliveries,
  [JobName.DigestSweep]: QueueName.Digests,
  [JobName.DigestFlush]: QueueName.Digests,
  [JobName.AlertDispatch]: QueueName.Escalations,
  [JobName.WebhookDeliver]: QueueName.Deliveries,
  [JobName.AlertsPrune]: QueueName.Maintenance,
  [JobName.EscalationStep]: QueueName.Escalations,
  [JobName.EscalationReEscalate]: QueueName.Escalations,
  [JobName.EscalationPages]: QueueName.Pages,
  [JobName.EscalationPageSends]: QueueName.PageSends,
  [JobName.TestAlertResolve]: QueueName.Escalations,
  [JobName.OrganizationWebhookDeliver]: QueueName.Deliveries,
  [JobName.OrganizationWebhooksPrune]: QueueName.Maintenance,
  [JobName.OpenStackServerWatch]: QueueName.Maintenance,
  [JobName.HeartbeatSweep]: QueueName.Maintenance,
  [JobName.AlertBundleFlush]: QueueName.Maintenance,
  [JobName.SecurityNotice]: QueueName.Deliveries,
  [JobName.FanOutPage]: QueueName.FanOuts,
  [JobName.FanOutSweep]: QueueName.Maintenance,
  [JobName.ObjectStorageUsageCheck]: QueueName.Maintenance,
};

/** A job as a typed union: the name decides the payload. */
export type JobItem = { [N in JobName]: { name: N; data: JobPayloads[N] } }[JobName];

/** The declared jobs the worker must cover; a token so a test can declare its own. */
export const JOB_CATALOG = Symbol('JOB_CATALOG');
export type JobCatalog = Readonly<Record<string, QueueName>>;
