/*
 * The app kinds: where each kind's chart comes from, the values a client sends for it (one
 * JSON schema per kind), and how those values sit in the HelmRelease's `spec.values`.
 */

export const APP_KINDS = ['container', 'wordpress', 'nextcloud', 'static_site'] as const;
export type AppKind = (typeof APP_KINDS)[number];

export const isAppKind = (value: unknown): value is AppKind =>
  (APP_KINDS as readonly unknown[]).includes(value);

export interface ChartSource {
  /** The HelmRepository's `spec.url`. */
  url: string;
  /** `oci` for an OCI registry; omitted for a classic index.yaml repository. */
  type?: 'oci';
  /** The chart in that repository. */
  chart: string;
}

/**
 * The chart of each kind (one HelmRepository per kind, see chart-sources.ts). The `container`
 * kind's chart is the platform's own generic web-app chart, whose values are exactly the
 * ones below (image, port, replicas, env, host); the others are the community charts.
 */
export const APP_CHARTS: Record<AppKind, ChartSource> = {
  container: { url: 'https://charts.neutral.com/apps', chart: 'web-app' },
  wordpress: { url: 'oci://registry-1.docker.io/bitnamicharts', type: 'oci', chart: 'wordpress' },
  nextcloud: { url: 'https://nextcloud.github.io/helm/', chart: 'nextcloud' },
  static_site: { url: 'oci://registry-1.docker.io/bitnamicharts', type: 'oci', chart: 'nginx' },
};

/** Object names take no `_`: the HelmRepository of `static_site` is `static-site`. */
export const chartSourceName = (kind: AppKind) => kind.replace(/_/g, '-');

// Docker's reference grammar (distribution/reference): an optional registry host (with a
// port), lowercase path components, and a tag, which the platform requires.
const DOMAIN_PART = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `${DOMAIN_PART}(?:\\.${DOMAIN_PART})*(?::[0-9]+)?`;
const PATH_PART = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const TAG = '[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}';
export const IMAGE_PATTERN = `^(?:${DOMAIN}/)?${PATH_PART}(?:/${PATH_PART})*:${TAG}$`;

/** A fully qualified DNS name (at least two labels, lowercase), as an Ingress host takes it. */
export const DNS_NAME_PATTERN =
  '^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$';

export const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';

const HOST = {
  type: 'string',
  maxLength: 253,
  pattern: DNS_NAME_PATTERN,
  description: 'a fully qualified DNS name such as shop.example.com (lowercase, no wildcard)',
};
const REPLICAS = { type: 'integer', minimum: 1, maximum: 20, default: 1 };

/** The values a client sends, per kind (JSON Schema, draft 7). */
export const APP_VALUE_SCHEMAS: Record<AppKind, Record<string, unknown>> = {
  container: {
    type: 'object',
    additionalProperties: false,
    required: ['image', 'port'],
    properties: {
      image: {
        type: 'string',
        maxLength: 384,
        pattern: IMAGE_PATTERN,
        description: 'an image reference with a tag: registry/namespace/repository:tag',
      },
      port: { type: 'integer', minimum: 1, maximum: 65535 },
      replicas: REPLICAS,
      env: {
        type: 'array',
        maxItems: 100,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'value'],
          properties: {
            name: {
              type: 'string',
              maxLength: 255,
              pattern: ENV_NAME_PATTERN,
              description:
                'an environment variable name: a letter or `_`, then letters, digits or `_`',
            },
            value: { type: 'string', maxLength: 32768 },
          },
        },
      },
      host: HOST,
    },
  },
  wordpress: {
    type: 'object',
    additionalProperties: false,
    required: ['host'],
    properties: {
      host: HOST,
      blog_name: { type: 'string', minLength: 1, maxLength: 100 },
      admin_email: {
        type: 'string',
        maxLength: 254,
        pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$',
        description: 'an e-mail address',
      },
    },
  },
  nextcloud: {
    type: 'object',
    additionalProperties: false,
    required: ['host'],
    properties: { host: HOST },
  },
  static_site: {
    type: 'object',
    additionalProperties: false,
    required: ['host', 'git_repository'],
    properties: {
      host: HOST,
      git_repository: {
        type: 'string',
        maxLength: 2048,
        pattern: '^https://[^\\s/]+/\\S+$',
        description: 'an https URL of a git repository holding the site',
      },
      git_branch: {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        pattern: '^[A-Za-z0-9._/-]+$',
        default: 'main',
        description: 'a branch name',
      },
      replicas: REPLICAS,
    },
  },
};

/** One client value and where it sits in the chart's values, with its form there. */
interface ValuePlacement {
  path: string[];
  toChart?: (value: unknown) => unknown;
  fromChart?: (value: unknown) => unknown;
}

interface KindValues {
  placements: Record<string, ValuePlacement>;
  /** Chart values every release of the kind carries, whatever the client sent. */
  fixed: Record<string, unknown>;
}

const at = (...path: string[]): ValuePlacement => ({ path });

/** `registry/namespace/repository:tag` <-> `{repository, tag}`; the tag is after the last `:`. */
export function splitImage(image: string): { repository: string; tag: string } {
  const colon = image.lastIndexOf(':');
  return { repository: image.slice(0, colon), tag: image.slice(colon + 1) };
}

const IMAGE_PLACEMENT: ValuePlacement = {
  path: ['image'],
  toChart: (value) => splitImage(value as string),
  fromChart: (value) => {
    const image = value as { repository?: unknown; tag?: unknown } | undefined;
    return typeof image?.repository === 'string' && typeof image.tag === 'string'
      ? `${image.repository}:${image.tag}`
      : undefined;
  },
};

const KIND_VALUES: Record<AppKind, KindValues> = {
  container: {
    placements: {
      image: IMAGE_PLACEMENT,
      port: at('port'),
      replicas: at('replicas'),
      env: at('env'),
      host: at('host'),
    },
    fixed: {},
  },
  wordpress: {
    placements: {
      host: at('ingress', 'hostname'),
      blog_name: at('wordpressBlogName'),
      admin_email: at('wordpressEmail'),
    },
    fixed: { ingress: { enabled: true } },
  },
  nextcloud: {
    placements: { host: at('nextcloud', 'host') },
    fixed: { ingress: { enabled: true } },
  },
  static_site: {
    placements: {
      host: at('ingress', 'hostname'),
      git_repository: at('cloneStaticSiteFromGit', 'repository'),
      git_branch: at('cloneStaticSiteFromGit', 'branch'),
      replicas: at('replicaCount'),
    },
    fixed: {
      ingress: { enabled: true },
      cloneStaticSiteFromGit: { enabled: true },
      service: { type: 'ClusterIP' },
    },
  },
};

/** The HelmRelease's `spec.values` for validated client values. */
export function chartValues(
  kind: AppKind,
  values: Record<string, unknown>,
): Record<string, unknown> {
  const chart = structuredClone(KIND_VALUES[kind].fixed);
  for (const [field, placement] of Object.entries(KIND_VALUES[kind].placements)) {
    if (values[field] === undefined) continue;
    const value = placement.toChart ? placement.toChart(values[field]) : values[field];
    setPath(chart, placement.path, structuredClone(value));
  }
  return chart;
}

/** The client's values back from a HelmRelease's `spec.values` (what GET shows and PATCH keeps). */
export function clientValues(kind: AppKind, chart: unknown): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [field, placement] of Object.entries(KIND_VALUES[kind].placements)) {
    const raw = getPath(chart, placement.path);
    const value = placement.fromChart ? placement.fromChart(raw) : raw;
    if (value !== undefined) values[field] = value;
  }
  return values;
}

/** The client's `host`, where a kind has one. */
export const hostOf = (values: Record<string, unknown>): string | null =>
  typeof values.host === 'string' ? values.host : null;

export function getPath(object: unknown, path: readonly string[]): unknown {
  let current = object;
  for (const key of path) {
    if (!current || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function setPath(object: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let current = object;
  for (const key of path.slice(0, -1)) {
    const next = current[key];
    if (!next || typeof next !== 'object' || Array.isArray(next)) current[key] = {};
    current = current[key] as Record<string, unknown>;
  }
  current[path[path.length - 1]] = value;
}
