import { CoreErrorCode, CoreException, type FieldError } from '@platform/core';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { APP_KINDS, APP_VALUE_SCHEMAS, type AppKind } from './app-kinds.js';

// Defaults (replicas 1, branch main) are written into the values, so what a release runs with
// is what GET shows. All errors at once: a client fixes every field in one round.
const ajv = new Ajv({ allErrors: true, useDefaults: true, verbose: true, strict: true });
const validators = Object.fromEntries(
  APP_KINDS.map((kind) => [kind, ajv.compile(APP_VALUE_SCHEMAS[kind])]),
) as Record<AppKind, ValidateFunction>;

/**
 * The values of an app of `kind`, checked against its schema and completed with defaults; any
 * failure is 422 `validation_failed` naming each field (`values.env.0.name`), before anything
 * is written.
 */
export function validatedValues(kind: AppKind, values: unknown): Record<string, unknown> {
  const copy = structuredClone(values) as Record<string, unknown>;
  const validate = validators[kind];
  if (validate(copy)) return copy;
  const fields = fieldErrors(validate.errors ?? []);
  throw new CoreException(
    CoreErrorCode.ValidationFailed,
    `Validation failed: ${fields.map((f) => f.messages.join(', ')).join('; ')}`,
    { details: { fields } },
  );
}

function fieldErrors(errors: ErrorObject[]): FieldError[] {
  const byField = new Map<string, string[]>();
  for (const error of errors) {
    const { field, message } = describe(error);
    byField.set(field, [...(byField.get(field) ?? []), message]);
  }
  return [...byField].map(([field, messages]) => ({ field, messages: [...new Set(messages)] }));
}

function describe(error: ErrorObject): { field: string; message: string } {
  const base = ['values', ...error.instancePath.split('/').filter(Boolean)].join('.');
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') {
    const field = `${base}.${String(params.missingProperty)}`;
    return { field, message: `${field} is required` };
  }
  if (error.keyword === 'additionalProperties') {
    const field = `${base}.${String(params.additionalProperty)}`;
    return { field, message: `${field} is not a value of this kind` };
  }
  const description = (error.parentSchema as { description?: string } | undefined)?.description;
  if (error.keyword === 'pattern' && description) {
    return { field: base, message: `${base} must be ${description}` };
  }
  return { field: base, message: `${base} ${error.message ?? 'is invalid'}` };
}
