import type { JsonSchema } from './crd-types.js';

/**
 * A schema node with its path: `.` separates properties, `[]` marks array items, `{}` map
 * values and `|n` the n-th anyOf branch, e.g. `tolerations[].effect`.
 */
export interface SchemaNode {
  path: string;
  schema: JsonSchema;
  parent?: JsonSchema;
  /** The property name, when the node is a property of its parent. */
  property?: string;
}

export function schemaNodes(schema: JsonSchema, path = ''): SchemaNode[] {
  const nodes: SchemaNode[] = [{ path, schema }];
  const descend = (child: JsonSchema, childPath: string, property?: string) => {
    const [first, ...rest] = schemaNodes(child, childPath);
    nodes.push({ ...first, parent: schema, property }, ...rest);
  };
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    descend(child, path ? `${path}.${key}` : key, key);
  }
  if (schema.items) descend(schema.items, `${path}[]`);
  if (typeof schema.additionalProperties === 'object') {
    descend(schema.additionalProperties, `${path}{}`);
  }
  (schema.anyOf ?? []).forEach((branch, index) => descend(branch, `${path}|${index}`));
  return nodes;
}

/** The node at `path` (same notation as schemaNodes), or undefined. */
export function schemaAt(schema: JsonSchema, path: string): JsonSchema | undefined {
  return schemaNodes(schema).find((node) => node.path === path)?.schema;
}
