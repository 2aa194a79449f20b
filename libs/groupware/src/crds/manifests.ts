import type { CustomResourceDefinition, JsonSchema } from '@platform/kube';
import { stringify } from 'yaml';
import {
  GROUPWARE_GROUP,
  GROUPWARE_KINDS,
  GROUPWARE_VERSION,
  type GroupwareKindDefinition,
} from './definitions.js';

/** Where the chart keeps the generated manifests, relative to the repository root. */
export const GROUPWARE_CRD_FOLDER = 'charts/groupware-operator/crds';

const AGE = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' } as const;

function rootSchema(definition: GroupwareKindDefinition): JsonSchema {
  return {
    type: 'object',
    description: definition.description,
    required: ['spec'],
    properties: {
      apiVersion: { type: 'string', description: 'Versioned schema of this representation.' },
      kind: { type: 'string', description: 'REST resource this object represents.' },
      metadata: { type: 'object' },
      spec: definition.spec.schema,
      status: definition.status.schema,
    },
  };
}

export function groupwareCrd(definition: GroupwareKindDefinition): CustomResourceDefinition {
  const singular = definition.kind.toLowerCase();
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${definition.plural}.${GROUPWARE_GROUP}`,
      labels: {
        'app.kubernetes.io/name': 'groupware-operator',
        'app.kubernetes.io/part-of': 'groupware-operator',
      },
    },
    spec: {
      group: GROUPWARE_GROUP,
      names: {
        kind: definition.kind,
        listKind: `${definition.kind}List`,
        plural: definition.plural,
        singular,
        shortNames: [definition.shortName],
        categories: ['groupware'],
      },
      scope: definition.scope,
      versions: [
        {
          name: GROUPWARE_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [...definition.columns, AGE],
          schema: { openAPIV3Schema: rootSchema(definition) },
        },
      ],
    },
  };
}

/** The six CustomResourceDefinitions of the group, ordered by file name. */
export function groupwareCrds(): CustomResourceDefinition[] {
  return Object.values(GROUPWARE_KINDS)
    .map((definition) => groupwareCrd(definition))
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

export const crdFileName = (crd: CustomResourceDefinition) =>
  `${crd.spec.group}_${crd.spec.names.plural}.yaml`;

/** The manifest file as committed: a header, then the CRD as YAML. */
export function crdManifest(crd: CustomResourceDefinition): string {
  const header = [
    `# ${crd.spec.names.kind} of ${crd.spec.group}/${GROUPWARE_VERSION}, generated from`,
    '# libs/groupware/src/crds by `npm run crds:groupware`: edit the source, not this file.',
    '# Helm installs it with the chart but never upgrades it: apply a changed version with',
    '# `kubectl apply --server-side -f` before upgrading.',
  ].join('\n');
  return `${header}\n${stringify(crd, { lineWidth: 0, singleQuote: true })}`;
}

/** File name to content of every manifest. */
export function groupwareCrdManifests(): Map<string, string> {
  return new Map(groupwareCrds().map((crd) => [crdFileName(crd), crdManifest(crd)]));
}
