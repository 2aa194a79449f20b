import { describe, expect, it } from '@jest/globals';
import { type JsonSchema, schemaNodes } from '@platform/kube';
import { groupwareCrds } from './manifests.js';

const roots = groupwareCrds().map(
  (crd) => [crd.spec.names.kind, crd.spec.versions[0].schema.openAPIV3Schema] as const,
);

/** Why a schema would not be structural, or would make the API server refuse the CRD. */
function structuralProblems(root: JsonSchema): string[] {
  const problems: string[] = [];
  for (const { path, schema, parent } of schemaNodes(root)) {
    const at = path || '<root>';
    if (/\|\d+$/.test(path)) {
      if (Object.keys(schema).join() !== 'type') problems.push(`${at}: anyOf branch not a type`);
      continue;
    }
    if (schema['x-kubernetes-int-or-string']) {
      const branches = (schema.anyOf ?? []).map((branch) => branch.type).sort();
      if (schema.type !== undefined || branches.join() !== 'integer,string') {
        problems.push(`${at}: malformed int-or-string`);
      }
    } else if (schema.type === undefined) {
      problems.push(`${at}: no type`);
    } else if (schema.anyOf || schema.oneOf || schema.allOf) {
      problems.push(`${at}: anyOf/oneOf/allOf outside int-or-string`);
    }
    if (schema.properties && schema.additionalProperties !== undefined) {
      problems.push(`${at}: properties together with additionalProperties`);
    }
    const open = schema['x-kubernetes-preserve-unknown-fields'] === true;
    if (schema.type === 'object' && !schema.properties && !schema.additionalProperties && !open) {
      if (path !== 'metadata') problems.push(`${at}: object that would prune every field`);
    }
    if (schema.type === 'array' && !schema.items) problems.push(`${at}: array without items`);
    for (const name of schema.required ?? []) {
      if (!schema.properties?.[name]) problems.push(`${at}: requires unknown ${name}`);
    }
    for (const key of schema['x-kubernetes-list-map-keys'] ?? []) {
      if (!schema.items?.required?.includes(key)) problems.push(`${at}: map key ${key} optional`);
    }
    if (schema.default !== undefined && schema.enum && !schema.enum.includes(schema.default)) {
      problems.push(`${at}: default outside the enum`);
    }
    if (typeof schema.default === 'string' && schema.pattern) {
      if (!new RegExp(schema.pattern, 'u').test(schema.default)) {
        problems.push(`${at}: default does not match the pattern`);
      }
    }
    if (path === 'metadata' && (parent !== root || Object.keys(schema).join() !== 'type')) {
      problems.push('metadata may only be {type: object} at the root');
    }
  }
  return problems;
}

/**
 * Objects below which a default sits but which would not exist to receive it: each needs
 * `default: {}` unless its parent requires it, it has required fields of its own, or it is
 * an array item (defaulted whenever the item is written).
 */
function undefaultedParents(root: JsonSchema): string[] {
  const hasDefaultBelow = (schema: JsonSchema): boolean =>
    Object.values(schema.properties ?? {}).some(
      (child) => child.default !== undefined || hasDefaultBelow(child),
    );
  return schemaNodes(root)
    .filter(({ schema, parent, property }) => {
      if (!parent || property === undefined || schema.default !== undefined) return false;
      if (parent.required?.includes(property) || schema.required?.length) return false;
      return hasDefaultBelow(schema);
    })
    .map(({ path }) => path);
}

describe('groupware CRD schemas', () => {
  it.each(roots)('%s: the schema is structural', (_kind, root) => {
    expect(structuralProblems(root)).toEqual([]);
  });

  it.each(roots)('%s: every object holding defaults exists to receive them', (kind, root) => {
    // Apps mean nothing until the user names them, so they get no `{}`: the defaults of a
    // Talk recording backend apply once one is written.
    const appsOnlyWhenWritten = ['spec.apps', 'spec.apps.spreed'];
    const expected = ['Groupware', 'GroupwareInstance'].includes(kind) ? appsOnlyWhenWritten : [];
    expect(undefaultedParents(root)).toEqual(expected);
  });

  it.each(roots)('%s: unknown fields are kept only where intended', (kind, root) => {
    const expected: Record<string, string[]> = {
      GroupwareInstance: ['spec.oidc', 'spec.helm.values'],
      GroupwarePool: ['spec.template.oidc', 'spec.template.helm.values'],
    };
    const open = schemaNodes(root)
      .filter(({ schema }) => schema['x-kubernetes-preserve-unknown-fields'])
      .map(({ path }) => path);
    expect(open).toEqual(expected[kind] ?? []);
  });

  it('cross-field rules are validation rules of the API server, robust to absent fields', () => {
    const root = roots.find(([kind]) => kind === 'GroupwareInstance')![1];
    const rules = schemaNodes(root)
      .filter(({ schema }) => schema['x-kubernetes-validations'])
      .map(({ path, schema }) => [path, schema['x-kubernetes-validations']!.map((v) => v.rule)]);
    expect(rules).toEqual([
      [
        'spec.database',
        [
          '!has(self.postgres) || (has(self.managed) && self.managed)',
          '!has(self.managed) || !self.managed || !has(self.type) || self.type == "postgresql"',
        ],
      ],
      ['spec.database.postgres.backup', ['!has(self.enabled) || !self.enabled || has(self.s3)']],
      [
        'spec.backups.data',
        [
          '!has(self.enabled) || !self.enabled || (has(self.bucket) && has(self.credentialsSecret))',
        ],
      ],
    ]);
  });

  it.each(roots)('%s: status carries observedGeneration as int64', (_kind, root) => {
    expect(root.properties!.status.properties!.observedGeneration).toMatchObject({
      type: 'integer',
      format: 'int64',
    });
  });
});
