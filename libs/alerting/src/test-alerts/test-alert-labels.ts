import type { Matcher } from '../matchers/matchers.js';
import { isSeverity, type Severity } from '../severity.js';

/** The label every test alert carries, so receivers and routes can tell it from a real one. */
export const TEST_ALERT_LABEL = 'platform_test';

/** The severity of a test alert whose labels name none, or one that is not a severity. */
export const DEFAULT_TEST_ALERT_SEVERITY: Severity = 'critical';

export const MAX_TEST_ALERT_LABELS = 64;
export const MAX_LABEL_NAME_LENGTH = 128;
export const MAX_LABEL_VALUE_LENGTH = 1024;
const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * What a `re` matcher contributes: no value can be derived from an arbitrary expression, so the
 * label gets a visible placeholder naming it, to be replaced through `labels`. As it stands it
 * rarely matches the expression, so the test alert then shows what a label lacking a real value
 * does to routing.
 */
export function regexPlaceholder(pattern: string): string {
  return `<matches: ${pattern}>`;
}

/**
 * The labels of a test alert: each matcher of the route contributes its label (`eq` its exact
 * value; `re` a placeholder; when one label has both, `eq` wins, being the only value that can
 * pass both; among matchers of one kind the first wins), then `overrides` replace per key,
 * then `platform_test` is forced to "true" and `severity` becomes critical unless it is one of
 * critical, high, warning, info.
 */
export function testAlertLabels(
  matchers: readonly Matcher[],
  overrides: Readonly<Record<string, string>>,
): Record<string, string> {
  const labels = new Map<string, string>();
  for (const op of ['eq', 're'] as const) {
    for (const matcher of matchers) {
      if (matcher.op !== op || labels.has(matcher.label)) continue;
      labels.set(matcher.label, op === 'eq' ? matcher.value : regexPlaceholder(matcher.value));
    }
  }
  for (const [name, value] of Object.entries(overrides)) labels.set(name, value);
  labels.set(TEST_ALERT_LABEL, 'true');
  if (!isSeverity(labels.get('severity'))) labels.set('severity', DEFAULT_TEST_ALERT_SEVERITY);
  // fromEntries keeps a label named like an Object.prototype key (`__proto__`) an own property.
  return Object.fromEntries(labels);
}

/** Why `value` is no acceptable `labels` object of a test alert request (empty: it is). */
export function labelProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return ['labels must be an object of label names to strings'];
  const entries = Object.entries(value as Record<string, unknown>);
  const problems: string[] = [];
  if (entries.length > MAX_TEST_ALERT_LABELS)
    problems.push(`labels must have at most ${MAX_TEST_ALERT_LABELS} entries`);
  for (const [name, label] of entries) {
    if (!LABEL_NAME.test(name) || name.length > MAX_LABEL_NAME_LENGTH)
      problems.push(
        `labels.${name.slice(0, 64)}: the name must match ${LABEL_NAME.source} (at most ${MAX_LABEL_NAME_LENGTH} characters)`,
      );
    else if (typeof label !== 'string') problems.push(`labels.${name} must be a string`);
    else if (label.length > MAX_LABEL_VALUE_LENGTH)
      problems.push(`labels.${name} must be at most ${MAX_LABEL_VALUE_LENGTH} characters`);
    else if (label.includes('\u0000')) problems.push(`labels.${name} must not contain NUL`);
  }
  return problems;
}
