import type { HelmRelease } from '../cluster/layout.js';
import { PlatformLabels } from '../cluster/layout.js';
import { type AppKind, clientValues, getPath, hostOf } from './app-kinds.js';

export type AppStatus = 'ready' | 'failed' | 'progressing' | 'unknown';

/** An app as clients see it (the `data` of the /apps routes). */
export interface AppView {
  id: string;
  project_id: string;
  name: string;
  kind: AppKind;
  status: AppStatus;
  values: Record<string, unknown>;
  image: string | null;
  url: string | null;
  last_deployed_at: string | null;
}

export function appView(release: HelmRelease): AppView {
  const labels = release.metadata.labels ?? {};
  const kind = labels[PlatformLabels.appKind] as AppKind;
  const values = clientValues(kind, release.spec?.values);
  const host = hostOf(values);
  return {
    id: labels[PlatformLabels.appId],
    project_id: labels[PlatformLabels.project],
    name: release.metadata.name ?? '',
    kind,
    status: appStatus(release),
    values,
    image: kind === 'container' ? imageOf(release.spec?.values) : null,
    url: host ? `https://${host}` : null,
    last_deployed_at: lastDeployedAt(release),
  };
}

/**
 * From the Ready condition, as Flux (kstatus) means it: True ready, False failed, Unknown
 * progressing. A spec that Flux has not looked at yet (a new app, a change, a pinned digest)
 * is progressing whatever the condition says, since that condition is about the spec before.
 * `unknown` when Flux looked but reports no Ready condition we can read.
 */
export function appStatus(release: HelmRelease): AppStatus {
  const observed = release.status?.observedGeneration;
  const generation = release.metadata.generation;
  if (observed === undefined || (generation !== undefined && observed < generation)) {
    return 'progressing';
  }
  const ready = release.status?.conditions?.find((condition) => condition.type === 'Ready');
  if (ready?.status === 'True') return 'ready';
  if (ready?.status === 'False') return 'failed';
  if (ready?.status === 'Unknown') return 'progressing';
  return 'unknown';
}

/**
 * When Helm last installed or upgraded the release successfully: the deployed snapshot of
 * Flux's release history, else the `Released` condition's last success, else the moment Ready
 * last turned True.
 */
export function lastDeployedAt(release: HelmRelease): string | null {
  const history = release.status?.history?.find((s) => s.status === 'deployed')?.lastDeployed;
  if (history) return history;
  const conditions = release.status?.conditions ?? [];
  for (const type of ['Released', 'Ready']) {
    const condition = conditions.find((c) => c.type === type && c.status === 'True');
    if (condition?.lastTransitionTime) return condition.lastTransitionTime;
  }
  return null;
}

/** `repository:tag`, with `@digest` when a push pinned one. */
export function imageOf(chartValues: unknown): string | null {
  const repository = getPath(chartValues, ['image', 'repository']);
  const tag = getPath(chartValues, ['image', 'tag']);
  const digest = getPath(chartValues, ['image', 'digest']);
  if (typeof repository !== 'string' || typeof tag !== 'string') return null;
  return `${repository}:${tag}${typeof digest === 'string' && digest ? `@${digest}` : ''}`;
}
