import { isSeverity, SEVERITIES, type Severity } from '../severity.js';

/**
 * How an ingest token turns the `severity` label senders use (`error`, `Critical`, `page`, or
 * none) into one of the four severities. A token minted without `severity_map` and
 * `default_severity` has no mapping, and ingest keeps the spec's exact matching.
 */
export interface SeverityMapping {
  /** Lower-cased label values to severities. */
  map: Readonly<Record<string, Severity>>;
  /** The severity of an alert without a severity label; null: such alerts are refused. */
  defaultSeverity: Severity | null;
}

export const MAX_SEVERITY_MAP_ENTRIES = 50;
export const MAX_SEVERITY_MAP_KEY_LENGTH = 64;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What is wrong with a `severity_map` of the mint body; empty when it is valid. */
export function severityMapProblems(value: unknown): string[] {
  if (!isObject(value)) return ['severity_map must be an object of label values to severities'];
  const keys = Object.keys(value);
  if (keys.length > MAX_SEVERITY_MAP_ENTRIES) {
    return [`severity_map must have at most ${MAX_SEVERITY_MAP_ENTRIES} entries`];
  }
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const key of keys) {
    if (key.trim() === '') problems.push('severity_map keys must not be empty');
    else if (key.length > MAX_SEVERITY_MAP_KEY_LENGTH) {
      problems.push(
        `severity_map key "${key.slice(0, 16)}…" is longer than ${MAX_SEVERITY_MAP_KEY_LENGTH} characters`,
      );
    }
    // Keys match case-insensitively, so two spellings of one key would be ambiguous.
    const folded = key.toLowerCase();
    if (seen.has(folded))
      problems.push(`severity_map keys "${key}" and another differ only in case`);
    seen.add(folded);
    if (!isSeverity(value[key])) {
      problems.push(`severity_map.${key} must be one of ${SEVERITIES.join(', ')}`);
    }
  }
  return problems;
}

/** The mapping of a valid mint body, keys lower-cased; null when it asks for none. */
export function severityMappingOf(
  severityMap: Readonly<Record<string, string>> | null | undefined,
  defaultSeverity: Severity | null | undefined,
): SeverityMapping | null {
  const entries = Object.entries(severityMap ?? {});
  if (entries.length === 0 && !defaultSeverity) return null;
  return {
    map: Object.fromEntries(
      entries.map(([key, severity]) => [key.toLowerCase(), severity]),
    ) as Record<string, Severity>,
    defaultSeverity: defaultSeverity ?? null,
  };
}

/** Why a severity label could not be mapped. */
export type SeverityRefusal = 'missing' | 'unknown';

/**
 * The severity of an alert whose `severity` label is `label`. Without a mapping only the four
 * exact values pass. With one, an absent or empty label takes the default; a label matches the
 * map's keys case-insensitively and, when the map has entries, the four severities too.
 */
export function resolveSeverity(
  label: string | undefined,
  mapping: SeverityMapping | null,
): Severity | SeverityRefusal {
  if (label === undefined || label === '') return mapping?.defaultSeverity ?? 'missing';
  if (isSeverity(label)) return label;
  if (!mapping) return 'unknown';
  const folded = label.toLowerCase();
  if (Object.hasOwn(mapping.map, folded)) return mapping.map[folded];
  if (Object.keys(mapping.map).length > 0 && isSeverity(folded)) return folded;
  return 'unknown';
}
