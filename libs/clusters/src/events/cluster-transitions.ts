import type { ObjectTransition } from '@platform/webhooks';
import type { Shoot } from '../garden/gardener-kinds.js';
import { PROJECT_ID_LABEL } from '../tenancy/garden-projects.service.js';

/**
 * How long after its creation a Shoot may first be seen ready and be told as new: a Create
 * that succeeded while no worker watched is followed by Reconciles, and one of those is then
 * the first success the platform sees; an older cluster's periodic Reconcile never is.
 */
export const CLUSTER_READY_WINDOW_MS = 24 * 60 * 60_000;

/**
 * The event a platform Shoot stands for: `cluster.ready` once Gardener's last operation on it
 * is a `Create` that `Succeeded`, or a `Reconcile` that `Succeeded` on a Shoot created within
 * the window. One transition per Shoot (`ready`): told the first time only. A Shoot being
 * deleted stands for nothing. `occurredAt` is the creation, so a worker that starts finds a
 * new cluster's readiness news and an old one's history.
 */
export function clusterTransition(shoot: Shoot, now: Date): ObjectTransition | null {
  const projectId = shoot.metadata.labels?.[PROJECT_ID_LABEL];
  const operation = shoot.status?.lastOperation;
  if (!projectId || shoot.metadata.deletionTimestamp || operation?.state !== 'Succeeded') {
    return null;
  }
  // A string on the wire, whatever the client's types say.
  const created = Date.parse(String(shoot.metadata.creationTimestamp ?? ''));
  const recent = Number.isFinite(created) && now.getTime() - created <= CLUSTER_READY_WINDOW_MS;
  if (operation.type !== 'Create' && !(operation.type === 'Reconcile' && recent)) return null;
  return {
    type: 'cluster.ready',
    transition: 'ready',
    occurredAt: Number.isFinite(created) ? new Date(created) : undefined,
    data: {
      cluster_id: shoot.metadata.uid ?? '',
      project_id: projectId,
      name: shoot.metadata.name ?? '',
      kubernetes_version: shoot.spec?.kubernetes?.version ?? null,
      region: shoot.spec?.region ?? null,
    },
  };
}
