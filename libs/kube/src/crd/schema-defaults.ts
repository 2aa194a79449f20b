import type { JsonSchema } from './crd-types.js';

/**
 * Fills in schema defaults the way the Kubernetes API server does for custom resources:
 * an absent (or null, unless nullable) property with a default gets a copy of it, then
 * defaulting descends into every present property, array item and map value. A default
 * inside an object therefore only applies when that object exists, which is why optional
 * parent objects carry `default: {}`. Returns a new value; the input is not modified.
 */
export function applySchemaDefaults<T>(schema: JsonSchema, value: T): T {
  return defaulted(schema, structuredClone(value)) as T;
}

function defaulted(schema: JsonSchema, value: unknown): unknown {
  if (Array.isArray(value)) {
    return schema.items ? value.map((item) => defaulted(schema.items!, item)) : value;
  }
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const missing = !(key in object) || (object[key] === null && !property.nullable);
    if (missing && property.default !== undefined) object[key] = structuredClone(property.default);
  }
  for (const [key, child] of Object.entries(object)) {
    const property =
      schema.properties?.[key] ??
      (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
    if (property) object[key] = defaulted(property, child);
  }
  return object;
}
