/*
 * Which Nextcloud a GroupwareInstance runs: `spec.version` is a major ("29"), a minor ("29.0")
 * or an exact version ("29.0.16"); majors resolve to the newest patch this table knows.
 * Chart versions: the nextcloud/helm chart's major follows Nextcloud's (its CHANGELOG: chart 6
 * ships Nextcloud 30 — README of 6.0.1, appVersion 30.0.0 —, chart 7 ships 31); the operator
 * sets `image.tag` itself, so the chart only has to be one written for that major.
 */

export interface KnownMajor {
  /** Newest known patch release of the major. */
  newest: string;
  /** nextcloud/helm chart version shipping that major. */
  chartVersion: string;
}

export const BUILTIN_VERSIONS: Readonly<Record<string, KnownMajor>> = {
  '28': { newest: '28.0.14', chartVersion: '4.6.10' },
  '29': { newest: '29.0.16', chartVersion: '5.5.6' },
  '30': { newest: '30.0.17', chartVersion: '6.6.10' },
  '31': { newest: '31.0.9', chartVersion: '7.0.4' },
};

export interface VersionResolution {
  requestedVersion: string;
  resolvedVersion: string;
  chartVersion: string;
  resolvedBy: 'builtin';
}

/** The version `requested` stands for, or undefined when the table does not know its major. */
export function resolveVersion(requested: string): VersionResolution | undefined {
  const parts = requested.split('.');
  const known = BUILTIN_VERSIONS[parts[0]];
  if (!known) return undefined;
  let resolvedVersion: string;
  if (parts.length === 3) resolvedVersion = requested;
  else if (parts.length === 1 || known.newest.startsWith(`${requested}.`))
    resolvedVersion = known.newest;
  else resolvedVersion = `${requested}.0`;
  return {
    requestedVersion: requested,
    resolvedVersion,
    chartVersion: known.chartVersion,
    resolvedBy: 'builtin',
  };
}

/** Negative, zero or positive as `a` is older than, the same as or newer than `b`. */
export function compareVersions(a: string, b: string): number {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let index = 0; index < 3; index += 1) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

export function majorOf(version: string): number {
  return Number(version.split('.')[0]);
}

/**
 * Why moving from `running` to `wanted` is refused (a downgrade, or more than one major at a
 * time), or undefined when it is allowed. Nextcloud migrates its database one major at a time
 * and has no way back.
 */
export function upgradeProblem(running: string, wanted: string): string | undefined {
  if (compareVersions(wanted, running) < 0) {
    return `spec.version: downgrade from ${running} to ${wanted} refused; the instance keeps running ${running}`;
  }
  const from = majorOf(running);
  const to = majorOf(wanted);
  if (to - from > 1) {
    return `spec.version: upgrade from ${running} to ${wanted} skips a major; upgrade to ${from + 1} first (the instance keeps running ${running})`;
  }
  return undefined;
}

export interface VersionChoice {
  /** What the release runs: the wanted version, or the running one when the change is refused. */
  resolution: VersionResolution;
  /** Why the wanted version is refused. */
  blocked?: string;
}

/**
 * The wanted version unless it skips a major or goes back from the one running. `running` is
 * the resolution of a release Helm installed; before any install, every known version goes
 * (a mistyped first version can be corrected).
 */
export function chooseVersion(
  requested: string,
  running: Partial<VersionResolution> | undefined,
): VersionChoice {
  const wanted = resolveVersion(requested)!;
  if (!running?.resolvedVersion) return { resolution: wanted };
  const blocked = upgradeProblem(running.resolvedVersion, wanted.resolvedVersion);
  return blocked ? { resolution: running as VersionResolution, blocked } : { resolution: wanted };
}
