/** Alert severities, highest first; a route threshold admits its own and every higher one. */
export const SEVERITIES = ['critical', 'high', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export function isSeverity(value: unknown): value is Severity {
  return typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value);
}

/** Whether `severity` is at or above `threshold` (null: any severity). */
export function meetsThreshold(severity: Severity, threshold: Severity | null): boolean {
  return threshold === null || SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(threshold);
}
