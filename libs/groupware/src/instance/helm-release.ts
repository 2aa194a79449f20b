import type { KubeObject } from '@platform/kube';
import type { GroupwareInstance, GroupwareProfile } from '../crds/types.js';
import { releaseValues } from './helm-values.js';
import { HELM_REPOSITORY, ownedMetadata } from './instance-names.js';
import type { VersionResolution } from './version-resolution.js';

interface FluxCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

export type HelmRelease = KubeObject<
  Record<string, unknown>,
  {
    observedGeneration?: number;
    conditions?: FluxCondition[];
    /** Helm release revisions, newest first (Flux's snapshots). */
    history?: Array<{ version?: number; status?: string }>;
  }
>;

/** Whether Helm ever installed the release: a revision was deployed (or since superseded). */
export function wasInstalled(release: HelmRelease | undefined): boolean {
  return (release?.status?.history ?? []).some(
    (revision) => revision.status === 'deployed' || revision.status === 'superseded',
  );
}

/** Reasons of a Ready=False HelmRelease that Flux gave up on (its remediation is exhausted). */
const RELEASE_FAILURES = new Set([
  'InstallFailed',
  'UpgradeFailed',
  'RollbackFailed',
  'UninstallFailed',
  'TestFailed',
  'ChartLoadFailed',
  'ArtifactFailed',
  'InitFailed',
  'GetLastReleaseFailed',
  'ValuesError',
]);

/** The Flux HelmRelease `<name>` of the nextcloud chart at `chartVersion`. */
export function helmRelease(
  instance: GroupwareInstance,
  profile: GroupwareProfile | undefined,
  resolution: VersionResolution,
): HelmRelease {
  const spec = instance.spec!;
  const { values, valuesFrom } = releaseValues(instance, profile, resolution);
  const chartVersion =
    spec.helm?.version ?? profile?.spec?.helm?.version ?? resolution.chartVersion;
  return {
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: ownedMetadata(instance, instance.metadata.name!),
    spec: {
      interval: '10m',
      releaseName: instance.metadata.name,
      chart: {
        spec: {
          chart: 'nextcloud',
          version: chartVersion,
          sourceRef: { kind: 'HelmRepository', name: HELM_REPOSITORY.name },
        },
      },
      install: { remediation: { retries: 3 } },
      upgrade: { remediation: { retries: 3 } },
      values,
      // null removes a list an earlier version of the spec set (merge patch semantics).
      valuesFrom: valuesFrom.length > 0 ? valuesFrom : null,
    },
  };
}

export type ReleaseState =
  | { state: 'ready' }
  | { state: 'progressing' }
  | { state: 'failed'; reason: string; message: string };

/** Where Flux is with the release: Ready for its current generation, failed, or underway. */
export function releaseState(release: HelmRelease | undefined): ReleaseState {
  if (!release) return { state: 'progressing' };
  const ready = release.status?.conditions?.find((condition) => condition.type === 'Ready');
  const generation = release.metadata.generation;
  const observed = ready?.observedGeneration ?? release.status?.observedGeneration;
  if (!ready || (generation !== undefined && observed !== generation)) {
    return { state: 'progressing' };
  }
  if (ready.status === 'True') return { state: 'ready' };
  if (ready.status === 'False' && RELEASE_FAILURES.has(ready.reason ?? '')) {
    return {
      state: 'failed',
      reason: ready.reason!,
      message: ready.message ?? `HelmRelease ${release.metadata.name}: ${ready.reason}`,
    };
  }
  return { state: 'progressing' };
}
