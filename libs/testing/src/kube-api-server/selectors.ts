import { badRequest } from './errors.js';

export type Labels = Record<string, string> | undefined;

type Requirement =
  | { key: string; operator: 'exists' | '!exists' }
  | { key: string; operator: 'in' | 'notin'; values: string[] };

/** A parsed label selector (`a=b,c!=d,e in (f,g),h notin (i),j,!k`). */
export class LabelSelector {
  private constructor(private readonly requirements: Requirement[]) {}

  static parse(text: string | undefined): LabelSelector | undefined {
    if (text === undefined || text.trim() === '') return undefined;
    return new LabelSelector(splitTopLevel(text).map(parseRequirement));
  }

  matches(labels: Labels): boolean {
    return this.requirements.every((requirement) => {
      const value = labels?.[requirement.key];
      switch (requirement.operator) {
        case 'exists':
          return value !== undefined;
        case '!exists':
          return value === undefined;
        case 'in':
          return value !== undefined && requirement.values.includes(value);
        case 'notin':
          return value === undefined || !requirement.values.includes(value);
      }
    });
  }
}

/** Splits on commas outside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  if (depth !== 0) throw invalidSelector(text);
  return parts.map((part) => part.trim());
}

const KEY =
  /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]{0,61}[a-z0-9A-Z])?$/;
const VALUE = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]{0,61}[a-z0-9A-Z])?)?$/;

function parseRequirement(text: string): Requirement {
  const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(text);
  if (set) {
    const values = set[3].split(',').map((value) => value.trim());
    checkKey(set[1], text);
    values.forEach((value) => checkValue(value, text));
    return { key: set[1], operator: set[2] as 'in' | 'notin', values };
  }
  const equality = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(text);
  if (equality) {
    checkKey(equality[1], text);
    checkValue(equality[3], text);
    return {
      key: equality[1],
      operator: equality[2] === '!=' ? 'notin' : 'in',
      values: [equality[3]],
    };
  }
  const existence = /^(!?)\s*([^=!\s()]+)$/.exec(text);
  if (existence) {
    checkKey(existence[2], text);
    return { key: existence[2], operator: existence[1] ? '!exists' : 'exists' };
  }
  throw invalidSelector(text);
}

function checkKey(key: string, text: string): void {
  if (!KEY.test(key)) throw invalidSelector(text);
}

function checkValue(value: string, text: string): void {
  if (!VALUE.test(value)) throw invalidSelector(text);
}

const invalidSelector = (text: string) =>
  badRequest(`unable to parse requirement: invalid label selector: "${text}"`);

/** A field selector on `metadata.name` and `metadata.namespace` (`=`, `==`, `!=`). */
export class FieldSelector {
  private constructor(
    private readonly requirements: Array<{
      field: 'metadata.name' | 'metadata.namespace';
      value: string;
      equal: boolean;
    }>,
  ) {}

  static parse(text: string | undefined): FieldSelector | undefined {
    if (text === undefined || text.trim() === '') return undefined;
    return new FieldSelector(
      text.split(',').map((part) => {
        const match = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(\S*)\s*$/.exec(part);
        if (!match) throw badRequest(`invalid field selector: "${text}"`);
        if (match[1] !== 'metadata.name' && match[1] !== 'metadata.namespace') {
          throw badRequest(`field label not supported: ${match[1]}`);
        }
        return { field: match[1], value: match[3], equal: match[2] !== '!=' };
      }),
    );
  }

  matches(namespace: string, name: string): boolean {
    return this.requirements.every((requirement) => {
      const actual = requirement.field === 'metadata.name' ? name : namespace;
      return (actual === requirement.value) === requirement.equal;
    });
  }

  /** The name the selector pins, letting a list skip the others. */
  get exactName(): string | undefined {
    return this.requirements.find((r) => r.field === 'metadata.name' && r.equal)?.value;
  }
}
