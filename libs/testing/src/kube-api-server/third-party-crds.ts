import { type KindRef, ThirdPartyKinds } from '@platform/kube';

/*
 * CustomResourceDefinitions of the other operators the platform writes to (Flux's HelmRelease
 * and HelmRepository, CloudNativePG's Cluster), as fixtures for the fake API server. Only the
 * fields the platform writes are typed, with the upstream schemas' required fields and enums;
 * the rest is kept as sent, as the real schemas would.
 */

const OPEN = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** A CRD of `kind` with the given spec and status schemas (status as a subresource). */
export function fixtureCrd(
  kind: KindRef,
  spec: Record<string, unknown>,
  status: Record<string, unknown> = OPEN,
) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${kind.plural}.${kind.group}` },
    spec: {
      group: kind.group,
      scope: kind.namespaced ? 'Namespaced' : 'Cluster',
      names: {
        kind: kind.kind,
        plural: kind.plural,
        singular: kind.kind.toLowerCase(),
        listKind: `${kind.kind}List`,
      },
      versions: [
        {
          name: kind.version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec, status } } },
        },
      ],
    },
  };
}

const secretKeySelector = {
  type: 'object',
  required: ['name', 'key'],
  properties: { name: { type: 'string' }, key: { type: 'string' } },
};

export const HELM_RELEASE_CRD = fixtureCrd(ThirdPartyKinds.HelmRelease, {
  type: 'object',
  required: ['interval', 'chart'],
  properties: {
    interval: { type: 'string' },
    chart: {
      type: 'object',
      required: ['spec'],
      properties: {
        spec: {
          type: 'object',
          required: ['chart', 'sourceRef'],
          properties: {
            chart: { type: 'string', minLength: 1 },
            version: { type: 'string' },
            sourceRef: {
              type: 'object',
              required: ['kind', 'name'],
              properties: {
                kind: { type: 'string', enum: ['HelmRepository', 'GitRepository', 'Bucket'] },
                name: { type: 'string' },
                namespace: { type: 'string' },
              },
            },
          },
        },
      },
    },
    releaseName: { type: 'string' },
    values: OPEN,
    valuesFrom: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kind', 'name'],
        properties: {
          kind: { type: 'string', enum: ['Secret', 'ConfigMap'] },
          name: { type: 'string' },
          valuesKey: { type: 'string' },
          targetPath: { type: 'string' },
          optional: { type: 'boolean' },
        },
      },
    },
    install: OPEN,
    upgrade: OPEN,
    suspend: { type: 'boolean' },
  },
});

export const HELM_REPOSITORY_CRD = fixtureCrd(ThirdPartyKinds.HelmRepository, {
  type: 'object',
  required: ['url'],
  properties: {
    url: { type: 'string', pattern: '^(http|https|oci)://.*$' },
    type: { type: 'string', enum: ['default', 'oci'] },
    interval: { type: 'string' },
  },
});

export const CNPG_CLUSTER_CRD = fixtureCrd(ThirdPartyKinds.PostgresCluster, {
  type: 'object',
  required: ['instances'],
  properties: {
    instances: { type: 'integer', minimum: 1 },
    imageName: { type: 'string' },
    storage: {
      type: 'object',
      properties: { size: { type: 'string' }, storageClass: { type: 'string' } },
    },
    bootstrap: {
      type: 'object',
      properties: {
        initdb: {
          type: 'object',
          properties: {
            database: { type: 'string' },
            owner: { type: 'string' },
            secret: { type: 'object', properties: { name: { type: 'string' } } },
          },
        },
      },
    },
    backup: {
      type: 'object',
      properties: {
        retentionPolicy: { type: 'string' },
        barmanObjectStore: {
          type: 'object',
          required: ['destinationPath'],
          properties: {
            destinationPath: { type: 'string' },
            endpointURL: { type: 'string' },
            s3Credentials: {
              type: 'object',
              properties: {
                accessKeyId: secretKeySelector,
                secretAccessKey: secretKeySelector,
              },
            },
          },
        },
      },
    },
  },
});

/** Flux and CloudNativePG, as a cluster running the groupware operator has them. */
export const THIRD_PARTY_CRDS = [HELM_RELEASE_CRD, HELM_REPOSITORY_CRD, CNPG_CLUSTER_CRD];
