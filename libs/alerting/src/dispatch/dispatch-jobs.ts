import type { JobsOptions } from 'bullmq';

/** Dispatch notifies people: retried with backoff when the worker fails mid-way. */
export const DISPATCH_JOB_OPTIONS: Readonly<JobsOptions> = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
};
