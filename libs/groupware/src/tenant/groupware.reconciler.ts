import { Injectable } from '@nestjs/common';
import {
  differsFrom,
  ensureObject,
  groupOf,
  isKubeApiError,
  type KindRef,
  type KubeObject,
  type ObjectName,
  ownerReference,
  type ReconcileContext,
  type Reconciler,
  writeStatus,
} from '@platform/kube';
import { GROUPWARE_GROUP, GroupwareKindRefs } from '../crds/definitions.js';
import { CLAIMED_BY_LABEL } from '../crds/other-kinds.js';
import type { Groupware, GroupwareInstance, GroupwarePool } from '../crds/types.js';
import { POOL_LABEL } from '../pools/pool-census.js';
import { type Binding, conflictStatus, groupwareStatus } from './groupware-status.js';
import {
  claimant,
  claimedBy,
  claimValue,
  isClaimable,
  poolCandidates,
  versionMatches,
} from './pool-candidates.js';

const INSTANCE = GroupwareKindRefs.GroupwareInstance;
const POOL = GroupwareKindRefs.GroupwarePool;
export const GROUPWARE_FINALIZER = 'k8s.neutral.com/groupware-cleanup';
/** Claims of one candidate refused with 409 while it stays claimable (its status moved). */
const CLAIM_ATTEMPTS = 3;

/**
 * Groupware, the tenant's object. Its first reconcile claims a Ready, unclaimed instance of a
 * matching pool (see poolCandidates) by labelling it `k8s.neutral.com/claimed-by:
 * <namespace>.<name>` in a merge patch carrying the resourceVersion the candidate was read at,
 * so the API server refuses all but one of the Groupware objects racing for it (409); a loser
 * tries the next candidate, and when none is left creates its own GroupwareInstance (named
 * after it, in its namespace, controlled by it) from `profile`, `version` and `apps`. It does
 * not wait for a pool to refill: a tenant gets an instance starting now rather than one that
 * may start later. The claim also drops the pool's ownerReference, so the instance outlives
 * its pool, and sets the Groupware's `apps` on it (kept so afterwards).
 *
 * Once bound, the status mirrors the instance. Deleting the Groupware deletes its instance,
 * created or claimed alike: a claimed instance has served a tenant, holds its data and
 * settings, and is not handed to another, so it is not returned to the pool, which refills
 * with a fresh one instead.
 */
@Injectable()
export class GroupwareReconciler implements Reconciler<Groupware> {
  readonly kind = GroupwareKindRefs.Groupware;
  /** Pools only for their cache: a Groupware binds once, so pool changes queue nothing. */
  readonly owns = [INSTANCE, POOL];
  readonly finalizer = GROUPWARE_FINALIZER;

  /** A claimed instance's label names its Groupware (created ones name it as their controller). */
  ownerOf(child: KubeObject, kind: KindRef): ObjectName | undefined {
    const value = kind.kind === INSTANCE.kind && child.metadata.labels?.[CLAIMED_BY_LABEL];
    return value ? claimant(value) : undefined;
  }

  async reconcile(groupware: Groupware, context: ReconcileContext): Promise<void> {
    const binding =
      (await this.boundInstance(groupware, context)) ??
      (await this.claim(groupware, context)) ??
      (await this.createInstance(groupware, context));
    if (!binding) {
      await writeStatus(
        context,
        this.kind,
        groupware,
        conflictStatus(groupware, context.clock.now()),
      );
      return;
    }
    const instance = await this.applySpec(groupware, binding, context);
    const status = groupwareStatus(groupware, { ...binding, instance }, context.clock.now());
    await writeStatus(context, this.kind, groupware, status);
  }

  async finalize(groupware: Groupware, context: ReconcileContext): Promise<void> {
    const bindings = [
      ...this.cachedBindings(groupware, context),
      ...(await this.serverBindings(groupware, context)),
    ];
    const deleted = new Set<string>();
    for (const { instance } of bindings) {
      const { namespace, name } = instance.metadata;
      if (deleted.has(`${namespace}/${name}`)) continue;
      deleted.add(`${namespace}/${name}`);
      await context.client.delete(INSTANCE, namespace, name!);
    }
  }

  /** The instance this Groupware claimed or created before, if any. */
  private async boundInstance(
    groupware: Groupware,
    context: ReconcileContext,
  ): Promise<Binding | undefined> {
    const [cached] = this.cachedBindings(groupware, context);
    if (cached) return cached;
    // The cache may not show this operator's last claim or create yet: ask the server.
    const [live] = await this.serverBindings(groupware, context);
    return live;
  }

  private cachedBindings(groupware: Groupware, context: ReconcileContext): Binding[] {
    const instances = context.cache<GroupwareInstance>(INSTANCE);
    const bindings: Binding[] = instances
      .list(undefined, { [CLAIMED_BY_LABEL]: claimValue(groupware) })
      .map((instance) => ({ instance, pool: instance.metadata.labels?.[POOL_LABEL] }));
    const own = instances.get(groupware.metadata.namespace, groupware.metadata.name!);
    if (own && controls(groupware, own)) bindings.push({ instance: own });
    return bindings;
  }

  /** What the server says: the instance the stored status names, and one named after it. */
  private async serverBindings(
    groupware: Groupware,
    context: ReconcileContext,
  ): Promise<Binding[]> {
    const { namespace, name } = groupware.metadata;
    const stored = await context.client.get<Groupware>(this.kind, namespace, name!);
    const ref = stored?.status?.instanceRef;
    const places = [{ namespace: namespace!, name: name! }];
    if (ref?.namespace && ref.name && (ref.namespace !== namespace || ref.name !== name)) {
      places.unshift({ namespace: ref.namespace, name: ref.name });
    }
    const bindings: Binding[] = [];
    for (const place of places) {
      const instance = await context.client.get<GroupwareInstance>(
        INSTANCE,
        place.namespace,
        place.name,
      );
      if (instance && claimedBy(instance, groupware)) {
        bindings.push({ instance, pool: instance.metadata.labels?.[POOL_LABEL] });
      } else if (instance && controls(groupware, instance)) {
        bindings.push({ instance });
      }
    }
    return bindings;
  }

  private async claim(
    groupware: Groupware,
    context: ReconcileContext,
  ): Promise<Binding | undefined> {
    const pools = context.cache<GroupwarePool>(POOL).list();
    const instances = context.cache<GroupwareInstance>(INSTANCE);
    for (const candidate of poolCandidates(groupware, pools, instances)) {
      const instance = await this.tryClaim(groupware, candidate.instance, context);
      if (instance) return { instance, pool: candidate.pool };
    }
    return undefined;
  }

  /** Claims one instance, or answers undefined when another Groupware got it first. */
  private async tryClaim(
    groupware: Groupware,
    candidate: GroupwareInstance,
    context: ReconcileContext,
  ): Promise<GroupwareInstance | undefined> {
    const { namespace, name } = candidate.metadata;
    let current = candidate;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await context.client.mergePatch<GroupwareInstance>(
          INSTANCE,
          namespace,
          name!,
          claimPatch(groupware, current),
        );
      } catch (error) {
        if (isKubeApiError(error, 404)) return undefined;
        if (!isKubeApiError(error, 409)) throw error;
      }
      if (attempt >= CLAIM_ATTEMPTS) return undefined;
      // Changed since it was read: claimed by another, or only its status moved.
      const fresh = await context.client.get<GroupwareInstance>(INSTANCE, namespace, name!);
      if (!fresh || !isClaimable(fresh) || !versionMatches(groupware.spec?.version, fresh)) {
        return undefined;
      }
      current = fresh;
    }
  }

  /** Creates the Groupware's own instance; undefined when its name is taken by another's. */
  private async createInstance(
    groupware: Groupware,
    context: ReconcileContext,
  ): Promise<Binding | undefined> {
    const { namespace, name } = groupware.metadata;
    if (context.cache<GroupwareInstance>(INSTANCE).get(namespace, name!)) return undefined;
    try {
      return { instance: await context.client.create(INSTANCE, ownInstance(groupware)) };
    } catch (error) {
      if (!isKubeApiError(error, 409)) throw error;
    }
    const existing = await context.client.get<GroupwareInstance>(INSTANCE, namespace, name!);
    return existing && controls(groupware, existing) ? { instance: existing } : undefined;
  }

  /** Keeps the instance's spec as the Groupware asks: all of it when created, apps when claimed. */
  private async applySpec(
    groupware: Groupware,
    binding: Binding,
    context: ReconcileContext,
  ): Promise<GroupwareInstance> {
    const { instance, pool } = binding;
    if (!pool) return ensureObject(context, INSTANCE, ownInstance(groupware));
    const apps = groupware.spec?.apps;
    if (!apps || !differsFrom(apps, instance.spec?.apps)) return instance;
    const { namespace, name } = instance.metadata;
    return context.client.mergePatch(INSTANCE, namespace, name!, { spec: { apps } });
  }
}

function controls(groupware: Groupware, instance: GroupwareInstance): boolean {
  return (instance.metadata.ownerReferences ?? []).some(
    (reference) => reference.controller === true && reference.uid === groupware.metadata.uid,
  );
}

/** The instance a Groupware gets when no pool has one for it. */
function ownInstance(groupware: Groupware): GroupwareInstance {
  const spec = groupware.spec!;
  return {
    apiVersion: `${INSTANCE.group}/${INSTANCE.version}`,
    kind: INSTANCE.kind,
    metadata: {
      name: groupware.metadata.name,
      namespace: groupware.metadata.namespace,
      ownerReferences: [ownerReference(groupware)],
    },
    spec: {
      profile: spec.profile,
      ...(spec.version ? { version: spec.version } : {}),
      ...(spec.apps ? { apps: spec.apps } : {}),
    } as GroupwareInstance['spec'],
  };
}

/**
 * The claim: the label, the Groupware's apps, the pool's ownerReference dropped, and the
 * resourceVersion the instance was read at, which makes the API server refuse a stale claim.
 */
function claimPatch(groupware: Groupware, instance: GroupwareInstance): object {
  const references = (instance.metadata.ownerReferences ?? []).filter(
    (reference) =>
      !(reference.kind === POOL.kind && groupOf(reference.apiVersion) === GROUPWARE_GROUP),
  );
  const apps = groupware.spec?.apps;
  return {
    metadata: {
      resourceVersion: instance.metadata.resourceVersion,
      labels: { [CLAIMED_BY_LABEL]: claimValue(groupware) },
      ownerReferences: references.length > 0 ? references : null,
    },
    ...(apps ? { spec: { apps } } : {}),
  };
}
