import type { JobName, JobPayloads } from '@platform/queue';

/** One e-mail as the SendEmail job carries it; the sender always comes from MAIL_FROM. */
export type EmailMessage = JobPayloads[JobName.SendEmail];

/** How a message left: over SMTP, or into the log when no SMTP server is configured. */
export type EmailDelivery = { via: 'smtp'; messageId: string } | { via: 'log' };
