import type { ObjectTransition } from '@platform/webhooks';
import { type HelmRelease, PlatformLabels } from '../cluster/layout.js';
import { isAppKind } from '../apps/app-kinds.js';
import { imageOf } from '../apps/app-view.js';

/**
 * The event an app's HelmRelease stands for: `app.deployed` while Flux reports it Ready for
 * the spec it has now, `app.failed` while it reports it not Ready (False) for it. The
 * transition names the chart revision and the generation, so each change of either (a new
 * chart version, new values, a pinned digest) is told once when Flux settles it, and Flux's
 * periodic reconciles of an unchanged release tell nothing. A condition about an older spec
 * (Flux has not looked at the change yet) and an app being deleted stand for nothing.
 */
export function appTransition(release: HelmRelease): ObjectTransition | null {
  const labels = release.metadata.labels ?? {};
  const appId = labels[PlatformLabels.appId];
  const projectId = labels[PlatformLabels.project];
  const kind = labels[PlatformLabels.appKind];
  if (!appId || !projectId || !isAppKind(kind) || release.metadata.deletionTimestamp) return null;
  const observed = release.status?.observedGeneration;
  const generation = release.metadata.generation;
  if (observed === undefined || (generation !== undefined && observed < generation)) return null;
  const ready = release.status?.conditions?.find((condition) => condition.type === 'Ready');
  if (ready?.status !== 'True' && ready?.status !== 'False') return null;
  const revision =
    release.status?.lastAttemptedRevision ?? release.status?.history?.[0]?.chartVersion ?? null;
  const data = {
    app_id: appId,
    project_id: projectId,
    name: release.metadata.name ?? '',
    kind,
    image: kind === 'container' ? imageOf(release.spec?.values) : null,
    revision,
  };
  const attempt = `${revision ?? ''}:${generation ?? observed}`;
  if (ready.status === 'True') {
    const deployed = release.status?.history?.[0];
    return {
      type: 'app.deployed',
      transition: `deployed:${attempt}`,
      occurredAt: latest(
        ready.lastTransitionTime,
        deployed?.status === 'deployed' ? deployed.lastDeployed : undefined,
      ),
      data,
    };
  }
  return {
    type: 'app.failed',
    transition: `failed:${attempt}`,
    occurredAt: latest(ready.lastTransitionTime),
    data: { ...data, reason: ready.reason ?? null, message: ready.message ?? null },
  };
}

/** The latest of the times given (RFC 3339), or undefined when none is readable. */
function latest(...times: Array<string | undefined>): Date | undefined {
  const readable = times.map((time) => Date.parse(time ?? '')).filter(Number.isFinite);
  return readable.length > 0 ? new Date(Math.max(...readable)) : undefined;
}
