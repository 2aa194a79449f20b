import type { JobName, JobPayloads } from '@platform/queue';

/** One e-mail; the sender always comes from MAIL_FROM. */
export type EmailMessage = Omit<EmailJob, 'deliveryId'>;

/** An e-mail as the SendEmail job carries it: the message and the record it reports to. */
export type EmailJob = JobPayloads[JobName.SendEmail];

/** How a message left: over SMTP, or into the log when no SMTP server is configured. */
export type EmailDelivery = { via: 'smtp'; messageId: string } | { via: 'log' };
