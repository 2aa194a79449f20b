import { GroupwareKind, GroupwareProfileKind } from '@platform/apps';
import { fixtureCrd, HELM_RELEASE_CRD, HELM_REPOSITORY_CRD } from '@platform/testing';

/*
 * Minimal CustomResourceDefinitions of what the apps cluster runs: Flux's HelmRelease and
 * HelmRepository, and the groupware operator's Groupware and GroupwareProfile. Only the fields
 * the platform writes are typed; the rest is kept as sent, as the real schemas would.
 */

const OPEN = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const crd = fixtureCrd;

export const APPS_CLUSTER_CRDS = [
  HELM_RELEASE_CRD,
  HELM_REPOSITORY_CRD,
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
