import { type Condition, setCondition } from '@platform/kube';
import type { GroupwareInstanceSpec, GroupwareInstanceStatus } from '../crds/types.js';
import type { VersionResolution } from './version-resolution.js';

export type InstancePhase = 'Pending' | 'Creating' | 'Ready' | 'Updating' | 'Failed';

/** Causes of the Failed phase; each is also a condition type, True while it holds. */
export const FAILURE_CAUSES = [
  'InvalidSpec',
  'DatabaseFailed',
  'ReleaseFailed',
  'OccFailed',
] as const;
export type FailureCause = (typeof FAILURE_CAUSES)[number];

export interface Failure {
  cause: FailureCause;
  message: string;
}

export interface Observation {
  /** The first failure found, in the order of FAILURE_CAUSES. */
  failure?: Failure;
  /** The release is Ready for its generation and the managed database (if any) is healthy. */
  serving: boolean;
  /** Helm installed the release at some point (it has a deployed revision). */
  installed?: boolean;
  /** Why a version change is refused, when it is. */
  upgradeBlocked?: string;
  resolution?: VersionResolution;
  apps?: Record<string, boolean>;
}

type StatusCondition = Condition & { observedGeneration?: number };

/** The phase the observation means, given the previous one. */
export function nextPhase(previous: string | undefined, observation: Observation): InstancePhase {
  if (observation.failure) return 'Failed';
  if (observation.serving) return 'Ready';
  // A spec change of a serving instance (its release is being upgraded) is an update, and so
  // is one after a failure once the release had been installed.
  const served =
    previous === 'Ready' ||
    previous === 'Updating' ||
    (previous === 'Failed' && observation.installed === true);
  return served ? 'Updating' : 'Creating';
}

/** `https://<host>` (http without TLS) when the instance has an ingress. */
export function instanceUrl(spec: GroupwareInstanceSpec): string | undefined {
  const ingress = spec.ingress;
  if (!ingress?.enabled || !ingress.host) return undefined;
  return `${ingress.tls?.enabled ? 'https' : 'http'}://${ingress.host}`;
}

const READY_MESSAGES: Record<InstancePhase, string> = {
  Pending: 'validating the spec',
  Creating: 'waiting for the release and database',
  Updating: 'applying a spec change',
  Ready: 'the release is ready',
  Failed: '',
};

/**
 * The status for `phase`: a `Ready` condition (the printer column), one condition per failure
 * cause and `UpgradeBlocked`, present only while they hold. Unchanged conditions keep their
 * transition time, so an unchanged status writes nothing.
 */
export function buildStatus(input: {
  previous: GroupwareInstanceStatus | undefined;
  phase: InstancePhase;
  observation: Observation;
  generation: number | undefined;
  url: string | undefined;
  now: Date;
}): Record<string, unknown> {
  const { previous, phase, observation, generation, now } = input;
  const { failure } = observation;
  let conditions = (previous?.conditions ?? []) as StatusCondition[];
  const set = (type: string, status: Condition['status'], reason: string, message: string) => {
    conditions = setCondition(conditions, { type, status, reason, message }, now);
  };
  set(
    'Ready',
    phase === 'Ready' ? 'True' : 'False',
    failure?.cause ?? phase,
    failure?.message ?? READY_MESSAGES[phase],
  );
  const wanted = new Set<string>(['Ready']);
  if (failure) {
    set(failure.cause, 'True', failure.cause, failure.message);
    wanted.add(failure.cause);
  }
  if (observation.upgradeBlocked) {
    set('UpgradeBlocked', 'True', 'UpgradeBlocked', observation.upgradeBlocked);
    wanted.add('UpgradeBlocked');
  }
  const kept = conditions
    .filter((condition) => wanted.has(condition.type))
    .map((condition) => ({ ...condition, observedGeneration: generation }));
  return {
    ...previous,
    phase,
    conditions: kept,
    ...(observation.resolution ? { versionResolution: observation.resolution } : {}),
    // null removes a URL the instance no longer has (merge patch).
    url: input.url ?? null,
    ...(observation.apps ? { apps: observation.apps } : {}),
  };
}
