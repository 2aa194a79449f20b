import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { schemaAt } from '@platform/kube';
import { GROUPWARE_CRD_FOLDER, groupwareCrdManifests, groupwareCrds } from './manifests.js';

const folder = fileURLToPath(new URL(`../../../../${GROUPWARE_CRD_FOLDER}/`, import.meta.url));
const crds = groupwareCrds();
const byKind = (kind: string) => crds.find((crd) => crd.spec.names.kind === kind)!;
const rootOf = (kind: string) => byKind(kind).spec.versions[0].schema.openAPIV3Schema;

// The spec's "Scope of kinds" table.
const SCOPES = [
  ['Groupware', 'groupwares', 'gw', 'Namespaced'],
  ['GroupwareInstance', 'groupwareinstances', 'gwi', 'Namespaced'],
  ['GroupwarePool', 'groupwarepools', 'gwpool', 'Cluster'],
  ['GroupwareProfile', 'groupwareprofiles', 'gwprofile', 'Cluster'],
  ['SignalingServer', 'signalingservers', 'ss', 'Cluster'],
  ['RecordingServer', 'recordingservers', 'rs', 'Cluster'],
] as const;

describe('groupware CRD manifests', () => {
  it('the committed manifests are exactly what the schema source generates (npm run crds:groupware)', () => {
    const generated = groupwareCrdManifests();
    const committed = readdirSync(folder).filter((file) => file.endsWith('.yaml'));
    expect(committed.sort()).toEqual([...generated.keys()].sort());
    for (const [file, content] of generated) {
      expect({ file, content: readFileSync(`${folder}${file}`, 'utf8') }).toEqual({
        file,
        content,
      });
    }
  });

  it('each manifest parses back to the generated CustomResourceDefinition', () => {
    for (const [file, content] of groupwareCrdManifests()) {
      const crd = crds.find((candidate) => file.includes(`_${candidate.spec.names.plural}.`));
      expect(parse(content)).toEqual(crd);
    }
  });

  it.each(SCOPES)('%s: names, short name, scope and version', (kind, plural, short, scope) => {
    const crd = byKind(kind);
    expect(crd.metadata.name).toBe(`${plural}.k8s.neutral.com`);
    expect(crd.spec.group).toBe('k8s.neutral.com');
    expect(crd.spec.names).toEqual({
      kind,
      listKind: `${kind}List`,
      plural,
      singular: kind.toLowerCase(),
      shortNames: [short],
      categories: ['groupware'],
    });
    expect(crd.spec.scope).toBe(scope);
    expect(crd.spec.versions).toHaveLength(1);
    expect(crd.spec.versions[0]).toMatchObject({
      name: 'v1alpha1',
      served: true,
      storage: true,
      subresources: { status: {} },
    });
    expect(rootOf(kind).required).toEqual(['spec']);
  });

  it.each([
    ['Groupware', ['Phase', 'Version', 'Ready']],
    ['GroupwareInstance', ['Phase', 'Version', 'Ready']],
    ['GroupwarePool', ['Size', 'Version', 'Ready', 'Claimed']],
    ['GroupwareProfile', ['Chart', 'Instances']],
    ['SignalingServer', ['URL', 'Ready']],
    ['RecordingServer', ['URL', 'Ready']],
  ])('%s: printer columns, then the age', (kind, shown) => {
    const columns = byKind(kind).spec.versions[0].additionalPrinterColumns!;
    expect(columns.filter((column) => !column.priority).map((column) => column.name)).toEqual([
      ...shown,
      'Age',
    ]);
    expect(columns.at(-1)).toEqual({
      name: 'Age',
      type: 'date',
      jsonPath: '.metadata.creationTimestamp',
    });
  });

  it.each(SCOPES.map(([kind]) => kind))(
    '%s: every column names a field of its type in the schema',
    (kind) => {
      for (const column of byKind(kind).spec.versions[0].additionalPrinterColumns!) {
        if (column.jsonPath.startsWith('.metadata.')) continue;
        const ready = column.jsonPath === '.status.conditions[?(@.type=="Ready")].status';
        const path = ready ? 'status.conditions[].status' : column.jsonPath.slice(1);
        expect({ column: column.name, type: schemaAt(rootOf(kind), path)?.type }).toEqual({
          column: column.name,
          type: column.type,
        });
      }
    },
  );
});
