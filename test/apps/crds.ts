import type { KindRef } from '@platform/kube';
import {
  GroupwareKind,
  GroupwareProfileKind,
  HelmReleaseKind,
  HelmRepositoryKind,
} from '@platform/apps';

/*
 * Minimal CustomResourceDefinitions of what the apps cluster runs: Flux's HelmRelease and
 * HelmRepository, and the groupware operator's Groupware and GroupwareProfile. Only the fields
 * the platform writes are typed; the rest is kept as sent, as the real schemas would.
 */

const OPEN = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

function crd(kind: KindRef, spec: Record<string, unknown>, status: Record<string, unknown>) {
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

export const APPS_CLUSTER_CRDS = [
  crd(
    HelmReleaseKind,
    {
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
        values: OPEN,
        install: OPEN,
        upgrade: OPEN,
      },
    },
    OPEN,
  ),
  crd(
    HelmRepositoryKind,
    {
      type: 'object',
      required: ['url'],
      properties: {
        url: { type: 'string', pattern: '^(http|https|oci)://.*$' },
        type: { type: 'string', enum: ['default', 'oci'] },
        interval: { type: 'string' },
      },
    },
    OPEN,
  ),
  crd(
    GroupwareKind,
    {
      type: 'object',
      required: ['profile'],
      properties: {
        profile: { type: 'string' },
        poolSelector: {
          type: 'object',
          properties: {
            matchLabels: { type: 'object', additionalProperties: { type: 'string' } },
          },
        },
        version: { type: 'string' },
        apps: OPEN,
      },
    },
    {
      type: 'object',
      properties: {
        phase: { type: 'string' },
        url: { type: 'string' },
        instanceRef: {
          type: 'object',
          properties: { namespace: { type: 'string' }, name: { type: 'string' } },
        },
        claimedFromPool: { type: 'string' },
      },
    },
  ),
  crd(GroupwareProfileKind, OPEN, OPEN),
];
