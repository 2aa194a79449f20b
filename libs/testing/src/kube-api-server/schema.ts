import type { JsonSchema } from './kinds.js';
import { type StoredObject, isPlainObject } from './objects.js';

const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * What the API server does with a custom resource and its structural schema: drops fields the
 * schema does not know (unless it preserves unknown fields), fills defaults, then validates.
 * Changes `object` in place; returns the validation errors in the server's wording.
 */
export function applySchema(object: StoredObject, schema: JsonSchema): string[] {
  const errors: string[] = [];
  const record = object as Record<string, unknown>;
  for (const [key, value] of Object.entries(record)) {
    if (ROOT_FIELDS.has(key)) continue;
    const property = schema.properties?.[key];
    if (!property && !schema['x-kubernetes-preserve-unknown-fields']) {
      delete record[key];
      continue;
    }
    if (property) record[key] = normalize(value, property);
  }
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (ROOT_FIELDS.has(key)) continue;
    if (record[key] === undefined && property.default !== undefined) {
      record[key] = normalize(structuredClone(property.default), property);
    }
    if (record[key] !== undefined) validate(record[key], property, key, errors);
  }
  for (const key of schema.required ?? []) {
    if (!ROOT_FIELDS.has(key) && record[key] === undefined) errors.push(`${key}: Required value`);
  }
  return errors;
}

/** Prunes unknown fields and nulls, then fills defaults, below one value. */
function normalize(value: unknown, schema: JsonSchema): unknown {
  if (Array.isArray(value) && schema.items) {
    return value.map((item) => normalize(item, schema.items!));
  }
  if (!isPlainObject(value) || schema.type !== 'object') return value;
  const result: Record<string, unknown> = {};
  const additional = isPlainObject(schema.additionalProperties)
    ? schema.additionalProperties
    : undefined;
  for (const [key, child] of Object.entries(value)) {
    const property = schema.properties?.[key] ?? additional;
    if (child === null && !property?.nullable) continue;
    if (property) result[key] = normalize(child, property);
    else if (
      schema['x-kubernetes-preserve-unknown-fields'] ||
      schema.additionalProperties === true
    ) {
      result[key] = child;
    }
  }
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (result[key] === undefined && property.default !== undefined) {
      result[key] = normalize(structuredClone(property.default), property);
    }
  }
  return result;
}

function validate(value: unknown, schema: JsonSchema, path: string, errors: string[]): void {
  if (value === null) {
    if (!schema.nullable)
      errors.push(
        `${path}: Invalid value: "null": ${path} in body must be of type ${schema.type}: "null"`,
      );
    return;
  }
  const typeError = checkType(value, schema);
  if (typeError) {
    errors.push(
      `${path}: Invalid value: "${typeError}": ${path} in body must be of type ${schema.type}: "${typeError}"`,
    );
    return;
  }
  const shown = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value);
  if (schema.enum && !schema.enum.some((allowed) => allowed === value)) {
    errors.push(
      `${path}: Unsupported value: ${shown}: supported values: ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`,
    );
  }
  if (typeof value === 'number') {
    if (
      schema.minimum !== undefined &&
      (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum)
    ) {
      errors.push(
        `${path}: Invalid value: ${value}: ${path} in body should be greater than ${schema.exclusiveMinimum ? '' : 'or equal to '}${schema.minimum}`,
      );
    }
    if (
      schema.maximum !== undefined &&
      (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum)
    ) {
      errors.push(
        `${path}: Invalid value: ${value}: ${path} in body should be less than ${schema.exclusiveMaximum ? '' : 'or equal to '}${schema.maximum}`,
      );
    }
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) {
      errors.push(
        `${path}: Invalid value: ${shown}: ${path} in body should be at least ${schema.minLength} chars long`,
      );
    }
    if (schema.maxLength !== undefined && value.length > schema.maxLength) {
      errors.push(`${path}: Too long: may not be more than ${schema.maxLength} bytes`);
    }
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) {
      errors.push(
        `${path}: Invalid value: ${shown}: ${path} in body should match '${schema.pattern}'`,
      );
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      errors.push(
        `${path}: Invalid value: ${value.length}: ${path} in body should have at least ${schema.minItems} items`,
      );
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      errors.push(`${path}: Too many: ${value.length}: must have at most ${schema.maxItems} items`);
    }
    if (schema.items)
      value.forEach((item, index) => validate(item, schema.items!, `${path}[${index}]`, errors));
  }
  if (isPlainObject(value)) {
    for (const key of schema.required ?? []) {
      if (value[key] === undefined) errors.push(`${path}.${key}: Required value`);
    }
    const additional = isPlainObject(schema.additionalProperties)
      ? schema.additionalProperties
      : undefined;
    for (const [key, child] of Object.entries(value)) {
      const property = schema.properties?.[key] ?? additional;
      if (property) validate(child, property, `${path}.${key}`, errors);
    }
  }
}

/** The offending JSON type's name when `value` is not of the schema's type. */
function checkType(value: unknown, schema: JsonSchema): string | undefined {
  const actual = Array.isArray(value)
    ? 'array'
    : isPlainObject(value)
      ? 'object'
      : typeof value === 'number'
        ? Number.isInteger(value)
          ? 'integer'
          : 'number'
        : typeof value;
  if (schema['x-kubernetes-int-or-string']) {
    return actual === 'integer' || actual === 'string' ? undefined : actual;
  }
  if (!schema.type) return undefined;
  if (schema.type === 'number' && actual === 'integer') return undefined;
  return actual === schema.type ? undefined : actual;
}
