import { type Condition, setCondition } from '@platform/kube';
import type { TalkServerStatus } from '../crds/types.js';
import type { Registration } from './talk-plan.js';

export interface JobFailure {
  /** `<namespace>/<name>` of the instance. */
  instance: string;
  job: string;
  attempt: number;
  retryAt: Date;
}

/** What one pass over the instances found. */
export interface RegistrationPass {
  registrations: Registration[];
  /** Instances with an occ Job under way. */
  running: string[];
  failures: JobFailure[];
  /** Why nothing could be registered: the shared secret cannot be read. */
  secretProblem?: string;
}

const seconds = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

export function failureMessage(failure: JobFailure): string {
  return (
    `occ Job ${failure.job} failed for ${failure.instance} (attempt ${failure.attempt}); ` +
    `retrying at ${seconds(failure.retryAt)}`
  );
}

function readyCondition(pass: RegistrationPass): Omit<Condition, 'lastTransitionTime'> {
  if (pass.secretProblem) {
    return {
      type: 'Ready',
      status: 'False',
      reason: 'SecretUnavailable',
      message: pass.secretProblem,
    };
  }
  if (pass.failures.length > 0) {
    const instances = pass.failures.map((failure) => failure.instance).join(', ');
    return {
      type: 'Ready',
      status: 'False',
      reason: 'OccFailed',
      message: `occ failed for ${instances}`,
    };
  }
  if (pass.running.length > 0) {
    return {
      type: 'Ready',
      status: 'False',
      reason: 'Registering',
      message: `occ Jobs running for ${pass.running.join(', ')}`,
    };
  }
  return {
    type: 'Ready',
    status: 'True',
    reason: 'Registered',
    message: `registered with ${pass.registrations.length} instance(s)`,
  };
}

function occFailedCondition(pass: RegistrationPass): Omit<Condition, 'lastTransitionTime'> {
  if (pass.failures.length === 0) {
    return {
      type: 'OccFailed',
      status: 'False',
      reason: 'NoFailedJobs',
      message: 'no occ Job is failing',
    };
  }
  const message = pass.failures.map(failureMessage).join('; ');
  return { type: 'OccFailed', status: 'True', reason: 'JobFailed', message };
}

/** The server's status after a pass; conditions keep their transition times when unchanged. */
export function talkServerStatus(
  previous: TalkServerStatus | undefined,
  pass: RegistrationPass,
  now: Date,
): TalkServerStatus {
  const registrations = [...pass.registrations].sort((a, b) =>
    a.instance.localeCompare(b.instance),
  );
  let conditions = setCondition(previous?.conditions, readyCondition(pass), now);
  conditions = setCondition(conditions, occFailedCondition(pass), now);
  return {
    // Every condition set here has a reason and a message.
    conditions: conditions as NonNullable<TalkServerStatus['conditions']>,
    registeredInstances: registrations.map((registration) => registration.instance),
    registrations,
  };
}
