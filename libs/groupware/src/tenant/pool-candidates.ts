import { type KubeObject, matchesLabels, type ObjectCache } from '@platform/kube';
import { CLAIMED_BY_LABEL } from '../crds/other-kinds.js';
import type { Groupware, GroupwareInstance, GroupwarePool } from '../crds/types.js';
import { isClaimed, isReady, LABEL_VALUE_MAX, POOL_LABEL } from '../pools/pool-census.js';

/** `<namespace>.<name>`: the claim label's value (namespaces have no dots, so it splits back). */
export function claimValue(groupware: KubeObject): string {
  return `${groupware.metadata.namespace}.${groupware.metadata.name}`;
}

/** The Groupware a claim label names. */
export function claimant(value: string): { namespace: string; name: string } | undefined {
  const dot = value.indexOf('.');
  if (dot <= 0 || dot === value.length - 1) return undefined;
  return { namespace: value.slice(0, dot), name: value.slice(dot + 1) };
}

export function claimedBy(instance: GroupwareInstance, groupware: KubeObject): boolean {
  return instance.metadata.labels?.[CLAIMED_BY_LABEL] === claimValue(groupware);
}

export interface PoolCandidate {
  pool: string;
  instance: GroupwareInstance;
}

/**
 * Instances the Groupware may claim, in the order it tries them: Ready, unclaimed, not being
 * deleted, of pools whose labels match `spec.poolSelector.matchLabels` and whose profile is the
 * Groupware's, with the requested version when it names one; pools by name, then the oldest
 * (warmest) instance first. Without a poolSelector a Groupware claims nothing, nor does one
 * whose `<namespace>.<name>` is too long for a label value.
 */
export function poolCandidates(
  groupware: Groupware,
  pools: GroupwarePool[],
  instances: ObjectCache<GroupwareInstance>,
): PoolCandidate[] {
  const selector = groupware.spec?.poolSelector;
  if (!selector || claimValue(groupware).length > LABEL_VALUE_MAX) return [];
  const requested = groupware.spec?.version;
  return pools
    .filter(
      (pool) =>
        matchesLabels(pool.metadata.labels, selector.matchLabels ?? {}) &&
        pool.spec?.profile === groupware.spec?.profile &&
        !pool.metadata.deletionTimestamp,
    )
    .sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!))
    .flatMap((pool) =>
      instances
        .list(pool.spec?.namespace, { [POOL_LABEL]: pool.metadata.name! })
        .filter((instance) => isClaimable(instance) && versionMatches(requested, instance))
        .sort(oldestFirst)
        .map((instance) => ({ pool: pool.metadata.name!, instance })),
    );
}

export function isClaimable(instance: GroupwareInstance): boolean {
  return isReady(instance) && !isClaimed(instance) && !instance.metadata.deletionTimestamp;
}

/**
 * Whether an instance runs the requested version: "29" matches any 29.x, "29.0.16" only that
 * one, by the instance's requested or resolved version. No request matches every instance.
 */
export function versionMatches(
  requested: string | undefined,
  instance: GroupwareInstance,
): boolean {
  if (!requested) return true;
  const versions = [
    instance.spec?.version,
    instance.status?.versionResolution?.resolvedVersion,
  ].filter((version): version is string => Boolean(version));
  return versions.some((version) => version === requested || version.startsWith(`${requested}.`));
}

function oldestFirst(a: GroupwareInstance, b: GroupwareInstance): number {
  return (
    String(a.metadata.creationTimestamp ?? '').localeCompare(
      String(b.metadata.creationTimestamp ?? ''),
    ) || a.metadata.name!.localeCompare(b.metadata.name!)
  );
}
