import { describe, expect, it } from '@jest/globals';
import { loadBackupCrds } from './index.js';
import type { CustomResourceDefinition, JsonSchema } from '@platform/kube';
import { schemaAt, schemaNodes } from '@platform/kube';

const crds = loadBackupCrds();
const rootOf = (crd: CustomResourceDefinition) => crd.spec.versions[0].schema.openAPIV3Schema;
const byPlural = (plural: string) => crds.find((crd) => crd.spec.names.plural === plural)!;

const NAMES = [
  ['volumebackups', 'VolumeBackup', 'volumebackup', 'vb'],
  ['volumerestores', 'VolumeRestore', 'volumerestore', 'vr'],
  ['volumesnapshotbackups', 'VolumeSnapshotBackup', 'volumesnapshotbackup', 'vsb'],
  ['s3backups', 'S3Backup', 's3backup', 's3b'],
] as const;
const PLURALS = NAMES.map(([plural]) => plural);

/** Why a schema would not be structural, or would make the API server refuse the CRD. */
function structuralProblems(root: JsonSchema): string[] {
  const problems: string[] = [];
  for (const { path, schema, parent } of schemaNodes(root)) {
    const at = path || '<root>';
    const inAnyOf = /\|\d+$/.test(path);
    if (inAnyOf) {
      const extra = Object.keys(schema).filter((key) => key !== 'type');
      if (extra.length > 0) problems.push(`${at}: anyOf branch carries ${extra.join(', ')}`);
      continue;
    }
    if (schema['x-kubernetes-int-or-string']) {
      if (schema.type !== undefined) problems.push(`${at}: int-or-string with a type`);
      const branches = (schema.anyOf ?? []).map((branch) => branch.type).sort();
      if (branches.join() !== 'integer,string') problems.push(`${at}: int-or-string anyOf`);
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
    if (schema.default !== undefined) {
      problems.push(...valueProblems(schema, schema.default, `${at} default`));
    }
    if (path === 'metadata' && (parent !== root || Object.keys(schema).join() !== 'type')) {
      problems.push('metadata may only be {type: object} at the root');
    }
  }
  return problems;
}

/** Validates a value against a schema node as the API server validates defaults. */
function valueProblems(schema: JsonSchema, value: unknown, at: string): string[] {
  const problems: string[] = [];
  if (schema['x-kubernetes-int-or-string']) {
    if (typeof value !== 'string' && !Number.isInteger(value))
      problems.push(`${at}: not int-or-string`);
  } else if (schema.type === 'integer' ? !Number.isInteger(value) : !hasType(schema, value)) {
    problems.push(`${at}: not ${schema.type}`);
    return problems;
  }
  if (schema.enum && !schema.enum.includes(value)) problems.push(`${at}: not in enum`);
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push(`${at}: < minimum`);
    if (schema.maximum !== undefined && value > schema.maximum) problems.push(`${at}: > maximum`);
  }
  if (typeof value === 'string') {
    if (schema.pattern && !new RegExp(schema.pattern).test(value)) problems.push(`${at}: pattern`);
    if (schema.minLength !== undefined && value.length < schema.minLength) {
      problems.push(`${at}: shorter than minLength`);
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      problems.push(`${at}: fewer than minItems`);
    }
    value.forEach((item, index) =>
      problems.push(...valueProblems(schema.items!, item, `${at}[${index}]`)),
    );
  }
  if (schema.type === 'object' && value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? []) {
      if (!(name in object)) problems.push(`${at}: ${name} missing`);
    }
    for (const [key, child] of Object.entries(object)) {
      const property = schema.properties?.[key];
      if (property) problems.push(...valueProblems(property, child, `${at}.${key}`));
    }
  }
  return problems;
}

function hasType(schema: JsonSchema, value: unknown): boolean {
  switch (schema.type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    default:
      return typeof value === schema.type;
  }
}

/** Left unset on purpose: absent, the check and restore test jobs take the backup job's resources. */
const INHERITED = ['spec.check.resources', 'spec.restoreTest.resources'];

/**
 * Objects below which a default sits but which would not exist to receive it: every such
 * object needs `default: {}`, unless its parent requires it or it has required fields of
 * its own (then it cannot be defaulted and only counts when the user writes it).
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
    .map(({ path }) => path)
    .filter((path) => !INHERITED.includes(path));
}

describe('backup CRD manifests', () => {
  it('define the four kinds of backups.k8s.neutral.com/v1', () => {
    expect(crds.map((crd) => crd.metadata.name).sort()).toEqual([
      's3backups.backups.k8s.neutral.com',
      'volumebackups.backups.k8s.neutral.com',
      'volumerestores.backups.k8s.neutral.com',
      'volumesnapshotbackups.backups.k8s.neutral.com',
    ]);
  });

  it.each(NAMES)(
    '%s: names, short name, category, scope and version',
    (plural, kind, singular, short) => {
      const crd = byPlural(plural);
      expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
      expect(crd.kind).toBe('CustomResourceDefinition');
      expect(crd.spec.group).toBe('backups.k8s.neutral.com');
      expect(crd.spec.names).toEqual({
        kind,
        listKind: `${kind}List`,
        plural,
        singular,
        shortNames: [short],
        categories: ['backups'],
      });
      expect(crd.spec.scope).toBe('Namespaced');
      expect(crd.spec.versions).toHaveLength(1);
      expect(crd.spec.versions[0]).toMatchObject({ name: 'v1', served: true, storage: true });
    },
  );

  it.each(PLURALS)('%s: status subresource with observedGeneration', (plural) => {
    const crd = byPlural(plural);
    expect(crd.spec.versions[0].subresources).toEqual({ status: {} });
    expect(schemaAt(rootOf(crd), 'status.observedGeneration')).toMatchObject({
      type: 'integer',
      format: 'int64',
    });
  });

  it.each(PLURALS)('%s: the schema is structural and its defaults are valid', (plural) => {
    expect(structuralProblems(rootOf(byPlural(plural)))).toEqual([]);
  });

  it.each(PLURALS)('%s: every object holding defaults exists to receive them', (plural) => {
    expect(undefaultedParents(rootOf(byPlural(plural)))).toEqual([]);
  });

  it('every kind requires a spec', () => {
    for (const plural of PLURALS) {
      expect(rootOf(byPlural(plural)).required).toEqual(['spec']);
    }
  });

  it('cross-field rules are validation rules of the API server', () => {
    const rules = (plural: string) =>
      schemaNodes(rootOf(byPlural(plural)))
        .filter(({ schema }) => schema['x-kubernetes-validations'])
        .map(({ path, schema }) => [path, schema['x-kubernetes-validations']!.map((v) => v.rule)]);
    expect(rules('volumebackups')).toEqual([
      ['spec.kubeconfig', ['self.inCluster || has(self.secretRef)']],
    ]);
    expect(rules('volumerestores')).toEqual([
      ['spec', ['has(self.sourceBackup) != has(self.sourceRepository)']],
      ['spec.sourceBackup', ['!(has(self.snapshotId) && has(self.snapshotDate))']],
      ['spec.sourceRepository', ['!(has(self.snapshotId) && has(self.snapshotDate))']],
      ['spec.targetPVC', ['self.createNew || has(self.name)']],
      ['spec.kubeconfig', ['self.inCluster || has(self.secretRef)']],
    ]);
    expect(rules('volumesnapshotbackups')).toEqual([]);
    expect(rules('s3backups')).toEqual([]);
  });

  it('S3Backup: spec and status are described field by field, none kept unread but affinity', () => {
    const root = rootOf(byPlural('s3backups'));
    const open = schemaNodes(root)
      .filter(({ schema }) => schema['x-kubernetes-preserve-unknown-fields'])
      .map(({ path }) => path);
    expect(open).toEqual(['spec.affinity']);
    expect(root.properties!.spec.required).toEqual(['source', 'repository']);
    expect(schemaAt(root, 'spec.source')!.required).toEqual(['bucket', 'endpoint']);
    expect(schemaAt(root, 'spec.webhooks')!.required).toEqual(['secretRef']);
    expect(Object.keys(root.properties!.status.properties!)).toEqual([
      'phase',
      'lastBackup',
      'lastSnapshot',
      'message',
      'size',
      'objectCount',
      'bytes',
      'conditions',
      'webhookDeliveries',
      'observedGeneration',
    ]);
  });

  it('S3Backup: every field says what it is', () => {
    const undescribed = schemaNodes(rootOf(byPlural('s3backups')))
      .filter(({ path, property }) => path.startsWith('spec.') && property !== undefined)
      .filter(({ schema }) => !schema.description)
      .map(({ path }) => path);
    expect(undescribed).toEqual([]);
  });

  it('affinity keeps every field and nodeSelector is a string map', () => {
    for (const plural of PLURALS) {
      const root = rootOf(byPlural(plural));
      expect(schemaAt(root, 'spec.affinity')).toMatchObject({
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
      });
      expect(schemaAt(root, 'spec.nodeSelector')).toMatchObject({
        type: 'object',
        additionalProperties: { type: 'string' },
      });
    }
  });

  it.each([
    ['volumebackups', ['Phase', '.status.phase'], ['Last Backup', '.status.lastBackup']],
    ['volumerestores', ['Phase', '.status.phase'], ['Completion', '.status.completionTime']],
    [
      'volumesnapshotbackups',
      ['Phase', '.status.phase'],
      ['Last Backup', '.status.lastBackup.timestamp'],
    ],
    [
      's3backups',
      ['Phase', '.status.phase'],
      ['Bucket', '.spec.source.bucket'],
      ['Last Backup', '.status.lastBackup'],
    ],
  ] as Array<[string, ...Array<[string, string]>]>)(
    '%s: printer columns for the phase, the last run and the age',
    (plural, ...expected) => {
      const crd = byPlural(plural);
      const columns = crd.spec.versions[0].additionalPrinterColumns ?? [];
      const shown = columns.filter((column) => !column.priority);
      for (const [name, jsonPath] of expected) {
        expect(shown).toContainEqual(expect.objectContaining({ name, jsonPath }));
      }
      expect(shown.at(-1)).toEqual({
        name: 'Age',
        type: 'date',
        jsonPath: '.metadata.creationTimestamp',
      });
      for (const column of columns.filter((c) => !c.jsonPath.startsWith('.metadata.'))) {
        const node = schemaAt(rootOf(crd), column.jsonPath.slice(1));
        expect({ column: column.name, type: node?.type, format: node?.format }).toEqual({
          column: column.name,
          type: column.type === 'date' ? 'string' : column.type,
          format: column.type === 'date' ? 'date-time' : node?.format,
        });
      }
    },
  );
});
