import { RE2JS } from 're2js';

/** A label matcher of routes and maintenance windows. */
export interface Matcher {
  label: string;
  op: 'eq' | 're';
  value: string;
}

export const MATCHER_OPS = ['eq', 're'] as const;

export type Labels = Readonly<Record<string, string>>;

/**
 * `re` matchers run on RE2 (linear time, no backtracking), anchored at both ends as in
 * Alertmanager: `value: "prod-.*"` matches `prod-db`, not `my-prod-db`. A missing label is the
 * empty string, again as in Alertmanager.
 */
export type CompiledMatcher = (labels: Labels) => boolean;

export function compileMatcher(matcher: Matcher): CompiledMatcher {
  if (matcher.op === 'eq') return (labels) => (labels[matcher.label] ?? '') === matcher.value;
  const pattern = RE2JS.compile(`^(?:${matcher.value})$`);
  return (labels) => pattern.matcher(labels[matcher.label] ?? '').matches();
}

/** All matchers must pass (AND); no matchers match everything. */
export function compileMatchers(matchers: readonly Matcher[]): CompiledMatcher {
  const compiled = matchers.map(compileMatcher);
  return (labels) => compiled.every((matches) => matches(labels));
}

/**
 * The problems of a matcher list as `{field, messages}` (empty when valid), e.g. an unknown op
 * or a regular expression RE2 refuses. `field` is prefixed with `path`.
 */
export function matcherProblems(
  matchers: unknown,
  path = 'matchers',
): Array<{ field: string; messages: string[] }> {
  if (matchers === undefined || matchers === null) return [];
  if (!Array.isArray(matchers)) return [{ field: path, messages: [`${path} must be an array`] }];
  const problems: Array<{ field: string; messages: string[] }> = [];
  matchers.forEach((raw: unknown, index) => {
    const field = `${path}[${index}]`;
    const m = raw as Partial<Record<keyof Matcher, unknown>> | null;
    const messages: string[] = [];
    if (!m || typeof m !== 'object') {
      problems.push({ field, messages: ['must be an object {label, op, value}'] });
      return;
    }
    if (typeof m.label !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(m.label))
      messages.push('label must be a label name');
    if (!MATCHER_OPS.includes(m.op as Matcher['op'])) messages.push('op must be eq or re');
    if (typeof m.value !== 'string') messages.push('value must be a string');
    else if (m.value.length > 1024) messages.push('value must be at most 1024 characters');
    else if (m.op === 're') {
      try {
        RE2JS.compile(m.value);
      } catch (error) {
        messages.push(`value is not a valid regular expression: ${(error as Error).message}`);
      }
    }
    if (messages.length > 0) problems.push({ field, messages });
  });
  return problems;
}
