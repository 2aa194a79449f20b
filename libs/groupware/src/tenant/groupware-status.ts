import { type Condition, setCondition } from '@platform/kube';
import type { Groupware, GroupwareInstance } from '../crds/types.js';

export type GroupwarePhase = 'Pending' | 'Creating' | 'Ready' | 'Failed';

/** The instance's phase as the tenant sees it: an instance being updated still serves. */
export function groupwarePhase(instance: GroupwareInstance | undefined): GroupwarePhase {
  switch (instance?.status?.phase) {
    case 'Creating':
      return 'Creating';
    case 'Ready':
    case 'Updating':
      return 'Ready';
    case 'Failed':
      return 'Failed';
    default:
      return 'Pending';
  }
}

export interface Binding {
  instance: GroupwareInstance;
  /** The pool it was claimed from; unset for an instance created for the Groupware. */
  pool?: string;
}

/**
 * The Groupware's status mirroring its instance: phase, instanceRef, url, claimedFromPool, and
 * a Ready condition whose reason says why it is not (the instance's failure reason included).
 * `null` removes a field the merge patch would otherwise keep.
 */
export function groupwareStatus(groupware: Groupware, binding: Binding, now: Date): object {
  const { instance, pool } = binding;
  const phase = groupwarePhase(instance);
  const ref = `${instance.metadata.namespace}/${instance.metadata.name}`;
  return {
    phase,
    instanceRef: { namespace: instance.metadata.namespace, name: instance.metadata.name },
    url: instance.status?.url ?? null,
    claimedFromPool: pool ?? null,
    conditions: setCondition(
      groupware.status?.conditions,
      readyCondition(phase, ref, instance),
      now,
    ),
  };
}

/** The status of a Groupware whose instance name is taken by an object it does not control. */
export function conflictStatus(groupware: Groupware, now: Date): object {
  return {
    phase: 'Failed',
    conditions: setCondition(
      groupware.status?.conditions,
      {
        type: 'Ready',
        status: 'False',
        reason: 'InstanceNameTaken',
        message: `a GroupwareInstance ${groupware.metadata.namespace}/${groupware.metadata.name} exists that this Groupware does not control`,
      },
      now,
    ),
  };
}

function readyCondition(
  phase: GroupwarePhase,
  ref: string,
  instance: GroupwareInstance,
): Omit<Condition, 'lastTransitionTime'> {
  if (phase === 'Ready') {
    return {
      type: 'Ready',
      status: 'True',
      reason: 'InstanceReady',
      message: `instance ${ref} is Ready`,
    };
  }
  if (phase === 'Failed') {
    const cause = failureCause(instance);
    return {
      type: 'Ready',
      status: 'False',
      reason: 'InstanceFailed',
      message: `instance ${ref} failed${cause ? `: ${cause.reason}: ${cause.message}` : ''}`,
    };
  }
  return {
    type: 'Ready',
    status: 'False',
    reason: 'InstanceNotReady',
    message: `instance ${ref} is ${instance.status?.phase ?? 'Pending'}`,
  };
}

/** Reasons the instance reconciler gives a Failed phase. */
const FAILURE_REASONS = new Set(['InvalidSpec', 'DatabaseFailed', 'ReleaseFailed', 'OccFailed']);

/** The instance condition naming why it failed: its Ready condition when False, else any named cause. */
function failureCause(
  instance: GroupwareInstance,
): { reason: string; message: string } | undefined {
  const conditions = instance.status?.conditions ?? [];
  const cause =
    conditions.find((condition) => condition.type === 'Ready' && condition.status === 'False') ??
    conditions.find((condition) => FAILURE_REASONS.has(condition.reason));
  return cause ? { reason: cause.reason, message: cause.message } : undefined;
}
