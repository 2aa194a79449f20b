import { expect } from '@jest/globals';
import { parse } from 'yaml';

/*
 * Helm charts checked without Helm: the values merged as Helm merges them, and the template
 * text read for its structure (actions, blocks, the `.Values` paths read, the manifests left
 * once the actions are taken out).
 */

export type Values = Record<string, unknown>;

export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  maxLength?: number;
  additionalProperties?: boolean;
  [keyword: string]: unknown;
}

export const isMap = (value: unknown): value is Values =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Helm's merge of supplied values over the chart's values.yaml: maps merge key by key, a list or
 * scalar replaces, null removes the key. The schema is checked against the result.
 */
export function coalesce(chart: Values, supplied: Values): Values {
  const result = structuredClone(chart);
  for (const [key, value] of Object.entries(supplied)) {
    if (value === null) delete result[key];
    else if (isMap(value) && isMap(result[key])) result[key] = coalesce(result[key], value);
    else result[key] = structuredClone(value);
  }
  return result;
}

export interface Action {
  /** The action without delimiters, trim markers and surrounding blanks. */
  body: string;
  start: number;
  end: number;
}

/** The template actions of a file, comments left out. */
export function actionsOf(text: string): Action[] {
  const actions: Action[] = [];
  for (const match of text.matchAll(/\{\{-?\s*([\s\S]*?)\s*-?\}\}/g)) {
    if (match[1].startsWith('/*')) continue;
    actions.push({ body: match[1], start: match.index, end: match.index + match[0].length });
  }
  return actions;
}

export const OPENERS = new Set(['if', 'with', 'range', 'define']);
export const KEYWORDS = new Set([...OPENERS, 'else', 'end']);
const keywordOf = (action: Action) => action.body.split(/\s+/)[0];

export interface Block {
  open: Action;
  close: Action;
}

/** The blocks of a file (if/with/range/define ... end), checked to nest and close. */
export function blocksOf(text: string): Block[] {
  const blocks: Block[] = [];
  const open: Action[] = [];
  for (const action of actionsOf(text)) {
    const keyword = keywordOf(action);
    if (OPENERS.has(keyword)) open.push(action);
    else if (keyword === 'else') {
      const top = open.at(-1);
      expect(top && keywordOf(top)).toMatch(/^(?:if|with|range)$/);
    } else if (keyword === 'end') {
      const opener = open.pop();
      if (!opener) throw new Error(`an {{ end }} without a block at ${action.start}`);
      blocks.push({ open: opener, close: action });
    }
  }
  expect(open.map((action) => action.body)).toEqual([]);
  return blocks;
}

/** The `.Values` paths the actions of a text read (`$.Values` included). */
export const valuesPathsOf = (text: string) =>
  actionsOf(text).flatMap((action) =>
    [...action.body.matchAll(/(?:^|[\s($])\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)].map((match) =>
      match[1].slice(1),
    ),
  );

/**
 * The words of an action that are neither strings, numbers, objects nor punctuation; every
 * object (`.x`, `$.x`, `$var`) it names must match `objects`.
 */
export function wordsOf(action: Action, objects: RegExp): string[] {
  const words = action.body
    .replace(/"(?:[^"\\]|\\.)*"/g, ' ')
    .split(/[\s|(),]+/)
    .filter(Boolean);
  for (const word of words.filter((w) => w.startsWith('.') || w.startsWith('$'))) {
    expect([word, objects.test(word)]).toEqual([word, true]);
  }
  return words.filter(
    (w) => !w.startsWith('.') && !w.startsWith('$') && !/^\d+$/.test(w) && w !== ':=',
  );
}

/**
 * A manifest template with its actions taken out: lines holding nothing but an action go, any
 * other action becomes the word TEMPLATED. Every branch is kept, so this is the union of what
 * the template can render, parsed as YAML (duplicate keys refused).
 */
export function skeletonOf(text: string): Values {
  const lines = text
    .split('\n')
    .filter((line) => !/^\s*\{\{[^}]*\}\}\s*$/.test(line))
    .map((line) => line.replace(/\{\{[^}]*\}\}/g, 'TEMPLATED'));
  return parse(lines.join('\n'), { uniqueKeys: true }) as Values;
}

/** The text between a block's opening and closing actions. */
export const inside = (text: string, block: Block) => text.slice(block.open.end, block.close.start);

/** The schema's property paths (through objects, not into lists or references). */
export function schemaPaths(node: Schema, prefix = ''): string[] {
  return Object.entries(node.properties ?? {}).flatMap(([key, child]) => [
    `${prefix}${key}`,
    ...schemaPaths(child, `${prefix}${key}.`),
  ]);
}

/** Whether `path` (dotted) names a property of the schema. */
export const resolvesIn = (schema: Schema, path: string) =>
  path.split('.').reduce<Schema | undefined>((node, key) => node?.properties?.[key], schema) !==
  undefined;

/** Every object of a schema is closed (`additionalProperties: false`): the paths of those that are not. */
export function openObjects(schema: unknown): string[] {
  const open: string[] = [];
  const walk = (node: unknown, at: string) => {
    if (!isMap(node)) return;
    // A map (additionalProperties a schema) is closed to other kinds of value.
    const closed = node.additionalProperties === false || isMap(node.additionalProperties);
    if (node.type === 'object' && !closed) open.push(at);
    for (const [key, child] of Object.entries(node)) {
      // Conditional subschemas add constraints to an object described elsewhere.
      if (key === 'if' || key === 'then' || key === 'else') continue;
      if (Array.isArray(child)) child.forEach((item, i) => walk(item, `${at}/${key}/${i}`));
      else walk(child, `${at}/${key}`);
    }
  };
  walk(schema, '#');
  return open;
}

/** Every `pattern` of a schema. */
export function patternsOf(schema: unknown): string[] {
  const patterns: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (isMap(node)) {
      if (typeof node.pattern === 'string') patterns.push(node.pattern);
      Object.values(node).forEach(walk);
    }
  };
  walk(schema);
  return patterns;
}
