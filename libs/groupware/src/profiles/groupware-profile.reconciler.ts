import { Injectable } from '@nestjs/common';
import {
  type FinalizeResult,
  type KubeObject,
  type ObjectName,
  type ReconcileContext,
  type Reconciler,
  setCondition,
  writeStatus,
} from '@platform/kube';
import { GroupwareKindRefs } from '../crds/definitions.js';
import type { GroupwareInstance, GroupwareProfile } from '../crds/types.js';

/** Keeps a profile while any GroupwareInstance names it. */
export const PROFILE_IN_USE_FINALIZER = 'k8s.neutral.com/profile-in-use';
/** Condition of a profile whose deletion waits for the instances naming it. */
export const DELETION_BLOCKED = 'DeletionBlocked';
/** Instances named in the DeletionBlocked message; the rest are counted. */
const NAMED_HOLDERS = 10;

/**
 * GroupwareProfile: counts the instances naming it in `status.instances`, and holds its
 * deletion with a finalizer until none does. Merging its defaults into an instance is the
 * instance reconciler's work; this one only watches instances, found through `spec.profile`.
 */
@Injectable()
export class GroupwareProfileReconciler implements Reconciler<GroupwareProfile> {
  readonly kind = GroupwareKindRefs.GroupwareProfile;
  readonly owns = [GroupwareKindRefs.GroupwareInstance];
  readonly finalizer = PROFILE_IN_USE_FINALIZER;

  /** An instance's events concern the profile it names (and, on a change, the one it named). */
  ownerOf(child: KubeObject): ObjectName | undefined {
    const profile = (child as GroupwareInstance).spec?.profile;
    return profile ? { name: profile } : undefined;
  }

  async reconcile(profile: GroupwareProfile, context: ReconcileContext): Promise<void> {
    const holders = instancesNaming(profile, context);
    await writeStatus(context, this.kind, profile, { instances: holders.length });
  }

  async finalize(
    profile: GroupwareProfile,
    context: ReconcileContext,
  ): Promise<FinalizeResult | void> {
    const holders = instancesNaming(profile, context);
    if (holders.length === 0) return;
    // Instance events queue the profile again: the finalizer goes with the last of them.
    await writeStatus(context, this.kind, profile, {
      instances: holders.length,
      conditions: setCondition(
        profile.status?.conditions,
        {
          type: DELETION_BLOCKED,
          status: 'True',
          reason: 'InUse',
          message: holdersMessage(holders),
        },
        context.clock.now(),
      ),
    });
    return { pending: true };
  }
}

/** `<namespace>/<name>` of the instances naming the profile, sorted. */
function instancesNaming(profile: GroupwareProfile, context: ReconcileContext): string[] {
  return context
    .cache<GroupwareInstance>(GroupwareKindRefs.GroupwareInstance)
    .list()
    .filter((instance) => instance.spec?.profile === profile.metadata.name)
    .map((instance) => `${instance.metadata.namespace}/${instance.metadata.name}`)
    .sort();
}

function holdersMessage(holders: string[]): string {
  const named = holders.slice(0, NAMED_HOLDERS).join(', ');
  const more = holders.length - NAMED_HOLDERS;
  return `in use by ${holders.length === 1 ? 'instance' : 'instances'} ${named}${more > 0 ? ` and ${more} more` : ''}`;
}
