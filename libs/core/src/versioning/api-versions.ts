/**
 * The API's major versions (Versioning rules 1-3). A client picks one with the `API-Version`
 * header; without it the default (latest stable) applies. Once a version's sunset has passed,
 * requests resolving to it answer 410 pointing at the successor.
 */
export interface ApiVersionDescriptor {
  major: number;
  /** After this instant the version answers 410 Gone. */
  sunset?: Date;
  /** The major that replaces this one; named in the 410's successor-version link. */
  successor?: number;
}

export interface ApiVersionPolicy {
  versions: ApiVersionDescriptor[];
  /** Used when the header is absent. */
  defaultMajor: number;
}

export const API_VERSION_POLICY = Symbol('API_VERSION_POLICY');

export const CURRENT_API_VERSIONS: ApiVersionPolicy = {
  versions: [{ major: 1 }],
  defaultMajor: 1,
};

export const API_VERSION_HEADER = 'API-Version';

export type VersionResolution =
  { ok: true; version: ApiVersionDescriptor } | { ok: false; requested: string };

export function resolveApiVersion(
  policy: ApiVersionPolicy,
  header: string | string[] | undefined,
): VersionResolution {
  const raw = (Array.isArray(header) ? header[0] : header)?.trim();
  const major =
    raw === undefined || raw === ''
      ? policy.defaultMajor
      : /^\d{1,4}$/.test(raw)
        ? Number(raw)
        : NaN;
  const version = policy.versions.find((v) => v.major === major);
  return version ? { ok: true, version } : { ok: false, requested: raw ?? '' };
}
