/**
 * Label selectors: equality maps (what reconcilers pass to the cache) and the string form the
 * API server takes (`a=b,c!=d,e in (x,y),f notin (z),g,!h`), which informers also apply to
 * their cached objects.
 */
export type Labels = Record<string, string> | undefined;

type Requirement =
  { key: string; op: 'in' | 'notin'; values: string[] } | { key: string; op: 'exists' | '!exists' };

export class LabelSelectorError extends Error {}

/** `{a: 'b', c: 'd'}` -> `a=b,c=d` (keys sorted, so equal maps give equal strings). */
export function formatLabelSelector(labels: Record<string, string>): string {
  return Object.keys(labels)
    .sort()
    .map((key) => `${key}=${labels[key]}`)
    .join(',');
}

export function matchesLabels(
  labels: Labels,
  selector: Record<string, string> | undefined,
): boolean {
  if (!selector) return true;
  for (const [key, value] of Object.entries(selector)) {
    if (labels?.[key] !== value) return false;
  }
  return true;
}

/** Parses the string form; throws LabelSelectorError on a malformed selector. */
export function parseLabelSelector(selector: string): (labels: Labels) => boolean {
  const requirements = splitRequirements(selector).map(parseRequirement);
  return (labels) => requirements.every((requirement) => satisfies(requirement, labels));
}

function splitRequirements(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    if (depth < 0) throw new LabelSelectorError(`Unbalanced parenthesis in "${selector}"`);
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  if (depth !== 0) throw new LabelSelectorError(`Unbalanced parenthesis in "${selector}"`);
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

const KEY = String.raw`[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?`;
const SET = new RegExp(String.raw`^(${KEY})\s+(in|notin)\s*\(([^()]*)\)$`);
const EQUALITY = new RegExp(String.raw`^(${KEY})\s*(==|=|!=)\s*([-A-Za-z0-9_.]*)$`);
const EXISTS = new RegExp(String.raw`^(!?)\s*(${KEY})$`);

function parseRequirement(text: string): Requirement {
  let match = SET.exec(text);
  if (match) {
    const values = match[4].split(',').map((value) => value.trim());
    return { key: match[1], op: match[3] as 'in' | 'notin', values };
  }
  match = EQUALITY.exec(text);
  if (match) {
    return { key: match[1], op: match[3] === '!=' ? 'notin' : 'in', values: [match[4]] };
  }
  match = EXISTS.exec(text);
  if (match) return { key: match[2], op: match[1] ? '!exists' : 'exists' };
  throw new LabelSelectorError(`Malformed label selector requirement "${text}"`);
}

function satisfies(requirement: Requirement, labels: Labels): boolean {
  const present = labels !== undefined && Object.hasOwn(labels, requirement.key);
  switch (requirement.op) {
    case 'exists':
      return present;
    case '!exists':
      return !present;
    case 'in':
      return present && requirement.values.includes(labels[requirement.key]);
    case 'notin':
      return !present || !requirement.values.includes(labels[requirement.key]);
  }
}
