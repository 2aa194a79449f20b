import { Injectable } from '@nestjs/common';
import {
  isKubeApiError,
  type KubeObject,
  type ObjectName,
  ownerReference,
  type ReconcileContext,
  type Reconciler,
  setCondition,
  writeStatus,
} from '@platform/kube';
import { GroupwareKindRefs } from '../crds/definitions.js';
import type { GroupwareInstance, GroupwarePool } from '../crds/types.js';
import { LABEL_VALUE_MAX, POOL_LABEL, poolCensus, surplusInstances } from './pool-census.js';
import { PoolExpectations } from './pool-expectations.js';

const INSTANCE = GroupwareKindRefs.GroupwareInstance;

/**
 * GroupwarePool: keeps `spec.size` unclaimed instances in `spec.namespace`, named
 * `<pool>-<5 random characters>` by the API server (generateName), made from `spec.template`
 * with the pool's profile, labelled with the pool and controlled by it. Instances not Ready yet
 * count toward the size; a claimed one (label `k8s.neutral.com/claimed-by`, set by a
 * Groupware, which also drops the pool's ownerReference so the instance outlives the pool)
 * counts no more, so the pool refills. When the size drops, unclaimed instances are deleted,
 * never claimed ones. A template change applies to instances created afterwards.
 */
@Injectable()
export class GroupwarePoolReconciler implements Reconciler<GroupwarePool> {
  readonly kind = GroupwareKindRefs.GroupwarePool;
  readonly owns = [INSTANCE];
  private readonly expectations = new PoolExpectations();

  /** Claimed instances have no pool ownerReference left: their label names the pool. */
  ownerOf(child: KubeObject): ObjectName | undefined {
    const pool = child.metadata.labels?.[POOL_LABEL];
    return pool ? { name: pool } : undefined;
  }

  async reconcile(pool: GroupwarePool, context: ReconcileContext): Promise<void> {
    const name = pool.metadata.name!;
    if (name.length > LABEL_VALUE_MAX) {
      await writeStatus(context, this.kind, pool, nameTooLongStatus(pool, context.clock.now()));
      return;
    }
    const size = pool.spec?.size ?? 1;
    const nowMs = context.clock.nowMs();
    const cached = context
      .cache<GroupwareInstance>(INSTANCE)
      .list(pool.spec?.namespace, { [POOL_LABEL]: name });
    const pending = this.expectations.pending(
      name,
      new Set(cached.map((instance) => instance.metadata.name!)),
      nowMs,
    );
    const census = poolCensus(
      cached.filter((instance) => !pending.deletes.has(instance.metadata.name!)),
    );
    const unclaimed = census.ready.length + census.creating.length + pending.creates.length;
    let creating = census.creating.length + pending.creates.length;
    let ready = census.ready.length;
    if (unclaimed < size) {
      creating += await this.createInstances(pool, size - unclaimed, context);
    } else if (unclaimed > size) {
      // Pending creates are not in the census: only what the cache shows can be deleted.
      const surplus = surplusInstances(census, Math.max(0, size - pending.creates.length));
      for (const instance of surplus) {
        if (!(await this.deleteInstance(pool, instance, context))) continue;
        if (census.ready.includes(instance)) ready -= 1;
        else creating -= 1;
      }
    }
    const counts = { ready, claimed: census.claimed.length, creating };
    await writeStatus(
      context,
      this.kind,
      pool,
      poolStatus(pool, counts, size, context.clock.now()),
    );
  }

  private async createInstances(
    pool: GroupwarePool,
    count: number,
    context: ReconcileContext,
  ): Promise<number> {
    const name = pool.metadata.name!;
    for (let created = 0; created < count; created += 1) {
      const instance = await context.client.create<GroupwareInstance>(INSTANCE, {
        apiVersion: pool.apiVersion,
        kind: INSTANCE.kind,
        metadata: {
          generateName: `${name}-`,
          namespace: pool.spec!.namespace,
          labels: { [POOL_LABEL]: name },
          ownerReferences: [ownerReference(pool)],
        },
        spec: {
          ...structuredClone(pool.spec?.template ?? {}),
          ...(pool.spec?.profile ? { profile: pool.spec.profile } : {}),
        } as GroupwareInstance['spec'],
      });
      this.expectations.expectCreated(name, instance.metadata.name!, context.clock.nowMs());
    }
    return count;
  }

  /**
   * Deletes an unclaimed instance unless it changed since the cache saw it (a Groupware may
   * have claimed it this moment): the precondition makes the API server refuse that with 409,
   * and the change's event queues the pool again.
   */
  private async deleteInstance(
    pool: GroupwarePool,
    instance: GroupwareInstance,
    context: ReconcileContext,
  ): Promise<boolean> {
    const { namespace, name, resourceVersion } = instance.metadata;
    try {
      await context.client.delete(INSTANCE, namespace, name!, {
        preconditions: { resourceVersion },
      });
    } catch (error) {
      if (isKubeApiError(error, 409)) return false;
      throw error;
    }
    this.expectations.expectDeleted(pool.metadata.name!, name!, context.clock.nowMs());
    return true;
  }
}

/** `{ready, claimed, creating}` and the Ready condition: True once `size` instances are Ready. */
function poolStatus(
  pool: GroupwarePool,
  counts: { ready: number; claimed: number; creating: number },
  size: number,
  now: Date,
): object {
  const filled = counts.ready >= size;
  const condition = {
    type: 'Ready',
    status: filled ? ('True' as const) : ('False' as const),
    reason: filled ? 'Filled' : 'Filling',
    message: `${counts.ready} of ${size} instances ready, ${counts.creating} not ready yet`,
  };
  return { ...counts, conditions: setCondition(pool.status?.conditions, condition, now) };
}

/** Its instances carry the pool's name as a label value, which has at most 63 characters. */
function nameTooLongStatus(pool: GroupwarePool, now: Date): object {
  const condition = {
    type: 'Ready',
    status: 'False' as const,
    reason: 'NameTooLong',
    message: `the pool name has ${pool.metadata.name!.length} characters; its instances' label takes at most ${LABEL_VALUE_MAX}`,
  };
  return {
    ready: 0,
    claimed: 0,
    creating: 0,
    conditions: setCondition(pool.status?.conditions, condition, now),
  };
}
