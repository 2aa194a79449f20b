import { CLAIMED_BY_LABEL } from '../crds/other-kinds.js';
import type { GroupwareInstance } from '../crds/types.js';

/** Label of the instances a pool created: the pool's name. It stays on them once claimed. */
export const POOL_LABEL = 'k8s.neutral.com/pool';
/** The longest label value Kubernetes accepts. */
export const LABEL_VALUE_MAX = 63;

/** A pool's instances by state; instances being deleted are in none. */
export interface PoolCensus {
  /** Unclaimed and Ready: what a Groupware may claim. */
  ready: GroupwareInstance[];
  /** Unclaimed and not Ready yet (or failed): they count toward the size, so it is not overshot. */
  creating: GroupwareInstance[];
  claimed: GroupwareInstance[];
}

export function isClaimed(instance: GroupwareInstance): boolean {
  return Boolean(instance.metadata.labels?.[CLAIMED_BY_LABEL]);
}

export function isReady(instance: GroupwareInstance): boolean {
  return instance.status?.phase === 'Ready';
}

export function poolCensus(instances: GroupwareInstance[]): PoolCensus {
  const census: PoolCensus = { ready: [], creating: [], claimed: [] };
  for (const instance of instances) {
    if (instance.metadata.deletionTimestamp) continue;
    if (isClaimed(instance)) census.claimed.push(instance);
    else if (isReady(instance)) census.ready.push(instance);
    else census.creating.push(instance);
  }
  return census;
}

/**
 * The unclaimed instances to delete so that `keep` remain: those not Ready first (the least
 * work lost), newest first within each group. Claimed instances are never chosen.
 */
export function surplusInstances(census: PoolCensus, keep: number): GroupwareInstance[] {
  const unclaimed = [...newestFirst(census.creating), ...newestFirst(census.ready)];
  return unclaimed.slice(0, Math.max(0, unclaimed.length - keep));
}

function newestFirst(instances: GroupwareInstance[]): GroupwareInstance[] {
  return [...instances].sort(
    (a, b) =>
      (b.metadata.creationTimestamp ?? '')
        .toString()
        .localeCompare((a.metadata.creationTimestamp ?? '').toString()) ||
      (b.metadata.name ?? '').localeCompare(a.metadata.name ?? ''),
  );
}
